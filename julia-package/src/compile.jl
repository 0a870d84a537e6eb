# Specialization on first call: one compiled function per list of argument types, in the
# process (and machine code on disk, in this package's scratch space, across sessions).

struct Compiled
    handle::Ptr{Cvoid}
    nresults::Int
end

struct Fallback
    reason::String
end

"""What `@vr` records for one function: its name, the source of the definitions it came
with, whether it may fall back to Julia, and its specializations."""
struct Entry
    name::String
    source::String
    fallback::Bool
    lock::ReentrantLock
    specs::Dict{Any,Union{Compiled,Fallback}}
end

Entry(name::AbstractString, source::AbstractString, fallback::Bool) = Entry(String(name), String(source), fallback, ReentrantLock(), Dict{Any,Union{Compiled,Fallback}}())

const CONTEXT = Ref{Ptr{Cvoid}}(C_NULL)
const CONTEXT_LOCK = ReentrantLock()

"""
    cache_dir()

Where compiled machine code is kept between sessions: this package's scratch space
(`Scratch.@get_scratch!`), so `Pkg.gc()` removes it with the package.
"""
cache_dir() = @get_scratch!("compiled")

function context()
    lock(CONTEXT_LOCK) do
        CONTEXT[] != C_NULL && return CONTEXT[]
        v = abi_version()
        v == ABI_VERSION || error("Velociraptor: the C library at $(LIBRARY_PATH[]) has ABI version $v; this package needs $ABI_VERSION")
        # Parallel loops (`Threads.@threads for`) on every core, whatever Julia's own
        # thread count; VR_THREADS sets another count.
        CONTEXT[] = context_create(["backend" => "cpu-par", "cache_dir" => cache_dir()])
        # At exit, wait for the background compiles of the full tier (the C API's
        # `tiers`): LLVM's static destructors must not run under one.
        # `vr_context_stats` waits for them.
        ctx = CONTEXT[]
        atexit(() -> (try context_stats(ctx) catch end; nothing))
        return CONTEXT[]
    end
end

"""
    stats()

The compile caches' counters: functions compiled, in-process hits, on-disk hits, writes
and rejected entries.
"""
stats() = context_stats(context())

function fall_back(e::Entry, reason::AbstractString)
    # Once per function and argument types: the fallback is cached with them.
    @warn "Velociraptor: `$(e.name)` runs as ordinary Julia: $reason"
    return Fallback(reason)
end

function specialize(e::Entry, args::Tuple)
    available() || return e.fallback ? fall_back(e, LIBRARY_ERROR[]) : error(LIBRARY_ERROR[])
    for (k, a) in enumerate(args)
        if a === nothing
            reason = "argument $k is of a type compiled code does not take (it takes Float64, Int64, Bool, ComplexF64 and dense Arrays of them)"
            e.fallback || throw(ArgumentError(reason))
            return fall_back(e, reason)
        end
    end
    types = VrType[vr_type(a) for a in args]
    st, f = compile_source(context(), e.source, e.name, types)
    if st != VR_OK
        err = error_from_last("compiling $(e.name)")
        e.fallback || throw(err)
        return fall_back(e, err.message)
    end
    return Compiled(f, result_count(f))
end

"""
    invoke_compiled(entry, original, args...)

The body of every `@vr` function: the compiled code for these argument types (compiled
now if new), or the original Julia function where it does not compile.
"""
function invoke_compiled(e::Entry, original, args...)
    key = map(typeof, args)
    s = lock(e.lock) do
        get!(() -> specialize(e, map(compiled_arg, args)), e.specs, key)
    end
    s isa Fallback && return original(args...)
    cargs = map(compiled_arg, args)
    values = VrValue[to_value(a) for a in cargs]
    results = fill(EMPTY_VALUE, s.nresults)
    st = GC.@preserve cargs call_raw(s.handle, values, results)
    if st != VR_OK
        err = error_from_last("calling $(e.name)")
        # An `unsupported` error at run time means Julia has an answer compiled code does
        # not give (an extent-1 broadcast, an Int64 beyond 2^53 against a Float64). Julia
        # reruns the call only when no array was passed: compiled code may have written
        # an argument before it stopped.
        if st == VR_UNSUPPORTED && e.fallback && !any(a -> a isa AbstractArray, args)
            @warn "Velociraptor: `$(e.name)` ran as ordinary Julia for these values: $(err.message)" maxlog = 1 _id = Symbol("velociraptor_", e.name)
            return original(args...)
        end
        throw(err)
    end
    out = map(from_value, results)
    return length(out) == 0 ? nothing : length(out) == 1 ? out[1] : Tuple(out)
end

"""The entry of each `@vr` function, by the function."""
const ENTRIES = IdDict{Any,Entry}()

register(f, e::Entry) = (ENTRIES[f] = e; f)

"""
    vrir(f, args...)

The VRIR Velociraptor compiled for `f`'s call with these arguments (after the
optimizer): what `vr dump` prints for a Julia file.
"""
function vrir(e::Entry, args...)
    s = lock(e.lock) do
        get!(() -> specialize(e, map(compiled_arg, args)), e.specs, map(typeof, args))
    end
    s isa Fallback && return "not compiled: " * s.reason
    return function_dump(s.handle, 0)
end

vrir(f::Function, args...) = haskey(ENTRIES, f) ? vrir(ENTRIES[f], args...) : error("`$f` is not a @vr function")
