"""
    VelociraptorError(status, message, func, line, variable, index, bound)

A run-time (or, with `@vr fallback=false`, compile-time) error of a compiled function:
`status` as a symbol (`:out_of_bounds`, `:division_by_zero`, `:runtime_error`, ...), the
message in Julia's words (`BoundsError: attempt to access ...`), the function, the line
of the source file, and where they apply the variable, the index and the bound.
"""
struct VelociraptorError <: Exception
    status::Symbol
    message::String
    func::Union{String,Nothing}
    line::Union{Int,Nothing}
    variable::Union{String,Nothing}
    index::Union{Int,Nothing}
    bound::Union{Int,Nothing}
end

function Base.showerror(io::IO, e::VelociraptorError)
    print(io, "VelociraptorError (", e.status, ")")
    e.func === nothing || print(io, " in ", e.func)
    e.line === nothing || print(io, " at line ", e.line)
    print(io, ": ", e.message)
end

"""The last error of the C library as a `VelociraptorError` (`what`: the operation)."""
function error_from_last(what::AbstractString = "")
    info = last_error()
    status = get(STATUS_NAMES, info.status, :internal_error)
    message = something(cstring_or_nothing(info.message), isempty(what) ? "unknown error" : "error $what")
    VelociraptorError(
        status,
        message,
        cstring_or_nothing(info.func),
        info.line >= 0 ? Int(info.line) : nothing,
        cstring_or_nothing(info.variable),
        info.has_index != 0 ? Int(info.index) : nothing,
        info.has_bound != 0 ? Int(info.bound) : nothing,
    )
end
