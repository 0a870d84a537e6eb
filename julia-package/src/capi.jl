# The C API (capi/include/velociraptor.h), mirrored: the structures with the same field
# types in the same order (Julia lays out isbits structs as C does), and one function per
# entry point used. Every call goes through `@ccall $pointer(...)`.

const ABI_VERSION = 3
const VR_MAX_NDIMS = 16

# Element types.
const VR_BOOL = Int32(0)
const VR_I32 = Int32(1)
const VR_I64 = Int32(2)
const VR_F32 = Int32(3)
const VR_F64 = Int32(4)
const VR_C64 = Int32(5)
const VR_C128 = Int32(6)
# Layouts.
const VR_LAYOUT_ROW = Int32(0)
const VR_LAYOUT_COL = Int32(1)
const VR_LAYOUT_STRIDED = Int32(2)
const VR_ARRAY_WRITEABLE = UInt32(1)
const VR_KIND_SCALAR = Int32(0)
const VR_KIND_ARRAY = Int32(1)
const VR_BY_REFERENCE = Int32(0)

# Status codes (VrStatus).
const STATUS_NAMES = Dict{Int32,Symbol}(
    0 => :ok, 1 => :parse_error, 2 => :type_error, 3 => :unsupported, 4 => :out_of_bounds, 5 => :division_by_zero,
    6 => :shape_mismatch, 7 => :runtime_error, 8 => :invalid_argument, 9 => :device_error, 10 => :internal_error, 11 => :interrupted,
)
const VR_OK = Int32(0)
const VR_UNSUPPORTED = Int32(3)

struct VrArray
    data::Ptr{Cvoid}
    elem::Int32
    ndims::Int32
    dims::NTuple{VR_MAX_NDIMS,Int64}
    strides::NTuple{VR_MAX_NDIMS,Int64}
    layout::Int32
    flags::UInt32
    owner::Ptr{Cvoid}
end

const EMPTY_ARRAY = VrArray(C_NULL, VR_F64, 0, ntuple(_ -> 0, VR_MAX_NDIMS), ntuple(_ -> 0, VR_MAX_NDIMS), VR_LAYOUT_COL, 0, C_NULL)

# `VrValue`: `scalar` is the union VrScalar (16 bytes: two doubles at most), kept as raw
# bits and read or written through `reinterpret`.
struct VrValue
    kind::Int32
    elem::Int32
    scalar::NTuple{2,UInt64}
    array::VrArray
end

const EMPTY_VALUE = VrValue(VR_KIND_SCALAR, VR_F64, (UInt64(0), UInt64(0)), EMPTY_ARRAY)

struct VrType
    kind::Int32
    elem::Int32
    ndims::Int32
    layout::Int32
end

struct VrErrorInfo
    status::Int32
    message::Cstring
    func::Cstring
    variable::Cstring
    line::Int64
    has_index::Int32
    index::Int64
    has_bound::Int32
    bound::Int64
    dim::Int64
end

struct VrHostHooks
    user_data::Ptr{Cvoid}
    alloc_array::Ptr{Cvoid}
    release_array::Ptr{Cvoid}
    incref::Ptr{Cvoid}
    decref::Ptr{Cvoid}
    on_error::Ptr{Cvoid}
    arg_convention::Int32
    random::Ptr{Cvoid}
end

abi_version() = @ccall $(sym(:vr_abi_version))()::UInt32

function last_error()
    info = Ref{VrErrorInfo}()
    @ccall $(sym(:vr_last_error))(info::Ptr{VrErrorInfo})::Int32
    return info[]
end

cstring_or_nothing(p::Cstring) = p == C_NULL ? nothing : unsafe_string(p)

function context_create(config::Vector{Pair{String,String}})
    keys = [k for (k, _) in config]
    values = [v for (_, v) in config]
    out = Ref{Ptr{Cvoid}}(C_NULL)
    st = GC.@preserve keys values begin
        kp = Ptr{UInt8}[pointer(k) for k in keys]
        vp = Ptr{UInt8}[pointer(v) for v in values]
        @ccall $(sym(:vr_context_create))(kp::Ptr{Ptr{UInt8}}, vp::Ptr{Ptr{UInt8}}, length(config)::Csize_t, out::Ptr{Ptr{Cvoid}})::Int32
    end
    st == VR_OK || throw(error_from_last("creating the context"))
    hooks = Ref(VrHostHooks(C_NULL, C_NULL, C_NULL, C_NULL, C_NULL, C_NULL, VR_BY_REFERENCE, C_NULL))
    st = @ccall $(sym(:vr_context_set_hooks))(out[]::Ptr{Cvoid}, hooks::Ptr{VrHostHooks})::Int32
    st == VR_OK || throw(error_from_last("setting the host hooks"))
    return out[]
end

"""
    compile_source(ctx, source, name, types) -> (status, function handle or C_NULL)
"""
function compile_source(ctx::Ptr{Cvoid}, source::String, name::String, types::Vector{VrType})
    out = Ref{Ptr{Cvoid}}(C_NULL)
    st = @ccall $(sym(:vr_compile_source))(
        ctx::Ptr{Cvoid}, "julia"::Cstring, source::Cstring, name::Cstring, types::Ptr{VrType}, length(types)::Csize_t, out::Ptr{Ptr{Cvoid}},
    )::Int32
    return st, out[]
end

function result_count(f::Ptr{Cvoid})
    np = Ref{Csize_t}(0)
    nr = Ref{Csize_t}(0)
    st = @ccall $(sym(:vr_function_signature))(f::Ptr{Cvoid}, C_NULL::Ptr{VrType}, 0::Csize_t, np::Ptr{Csize_t}, C_NULL::Ptr{VrType}, 0::Csize_t, nr::Ptr{Csize_t})::Int32
    st == VR_OK || throw(error_from_last("reading the signature"))
    return Int(nr[])
end

function call_raw(f::Ptr{Cvoid}, args::Vector{VrValue}, results::Vector{VrValue})
    return @ccall $(sym(:vr_call))(f::Ptr{Cvoid}, args::Ptr{VrValue}, length(args)::Csize_t, results::Ptr{VrValue}, length(results)::Csize_t)::Int32
end

function array_free(v::VrValue)
    a = Ref(v.array)
    @ccall $(sym(:vr_array_free))(a::Ptr{VrArray})::Cvoid
end

function function_dump(f::Ptr{Cvoid}, what::Integer)
    out = Ref{Ptr{Cchar}}(C_NULL)
    st = @ccall $(sym(:vr_function_dump))(f::Ptr{Cvoid}, Int32(what)::Int32, out::Ptr{Ptr{Cchar}})::Int32
    st == VR_OK || throw(error_from_last("dumping"))
    s = unsafe_string(out[])
    @ccall $(sym(:vr_string_free))(out[]::Ptr{Cchar})::Cvoid
    return s
end

function context_stats(ctx::Ptr{Cvoid})
    s = Ref{NTuple{6,UInt64}}()
    st = @ccall $(sym(:vr_context_stats))(ctx::Ptr{Cvoid}, s::Ptr{NTuple{6,UInt64}})::Int32
    st == VR_OK || throw(error_from_last("reading the cache statistics"))
    c = s[]
    return (compiles = c[1], memory_hits = c[2], disk_hits = c[3], disk_writes = c[4], disk_rejects = c[5], disk_untrusted = c[6])
end
