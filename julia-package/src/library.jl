# Finding and opening the C library (libvelociraptor_capi): the environment variable
# VELOCIRAPTOR_LIB, else what deps/build.jl built (`Pkg.build("Velociraptor")`). Entry
# points are looked up once and called through `@ccall $pointer(...)`, so the library's
# path is decided at run time, not when the package is precompiled.

const DEPS_FILE = joinpath(@__DIR__, "..", "deps", "deps.jl")

const LIBRARY = Ref{Ptr{Cvoid}}(C_NULL)
const LIBRARY_PATH = Ref{String}("")
const LIBRARY_ERROR = Ref{String}("")
const SYMBOLS = Dict{Symbol,Ptr{Cvoid}}()

"""
    library_path()

Where the C library is expected: `ENV["VELOCIRAPTOR_LIB"]`, else the one
`Pkg.build("Velociraptor")` built; `nothing` when neither exists.
"""
function library_path()
    p = get(ENV, "VELOCIRAPTOR_LIB", "")
    isempty(p) || return p
    if isfile(DEPS_FILE)
        m = Module()
        Base.include(m, DEPS_FILE)
        return m.BUILT_LIBRARY
    end
    return nothing
end

function reset_library!()
    LIBRARY[] = C_NULL
    empty!(SYMBOLS)
    LIBRARY_ERROR[] = ""
    p = library_path()
    if p === nothing
        LIBRARY_ERROR[] = "the Velociraptor C library was not found: set VELOCIRAPTOR_LIB or run Pkg.build(\"Velociraptor\")"
        return false
    end
    h = Libdl.dlopen(p; throw_error = false)
    if h === nothing
        LIBRARY_ERROR[] = "the Velociraptor C library at $p could not be opened"
        return false
    end
    LIBRARY[] = h
    LIBRARY_PATH[] = p
    return true
end

"""
    available()

Whether the C library is loaded (else every `@vr` function runs as ordinary Julia).
"""
available() = LIBRARY[] != C_NULL

function sym(name::Symbol)
    get!(SYMBOLS, name) do
        available() || error(LIBRARY_ERROR[])
        Libdl.dlsym(LIBRARY[], name)
    end
end
