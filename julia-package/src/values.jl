# Julia values to the C API's descriptors and back. Arguments cross without a copy: a
# dense array is handed over as a pointer to its own memory (column-major, writeable),
# so a compiled function's writes are the caller's, as Julia passes arrays by reference.
# Results come from the library's allocator and are copied into Julia arrays once.

elem_code(::Type{Float64}) = VR_F64
elem_code(::Type{Int64}) = VR_I64
elem_code(::Type{Bool}) = VR_BOOL
elem_code(::Type{ComplexF64}) = VR_C128
elem_code(::Type) = nothing

julia_type(code::Int32) =
    code == VR_F64 ? Float64 : code == VR_I64 ? Int64 : code == VR_BOOL ? Bool : code == VR_C128 ? ComplexF64 :
    code == VR_I32 ? Int32 : code == VR_F32 ? Float32 : code == VR_C64 ? ComplexF32 : error("unknown element type code $code")

"""The argument as compiled code takes it (a range is collected), or `nothing`."""
compiled_arg(x::Union{Float64,Int64,Bool,ComplexF64}) = x
compiled_arg(x::Array{T}) where {T} = elem_code(T) === nothing || ndims(x) > VR_MAX_NDIMS ? nothing : x
compiled_arg(x::AbstractRange{T}) where {T<:Union{Int64,Float64}} = collect(x)
compiled_arg(x) = nothing

vr_type(x::Number) = VrType(VR_KIND_SCALAR, elem_code(typeof(x)), 0, 0)
vr_type(x::Array{T,N}) where {T,N} = VrType(VR_KIND_ARRAY, elem_code(T), N, VR_LAYOUT_COL)

bits(x::Float64) = (reinterpret(UInt64, x), UInt64(0))
bits(x::Int64) = (reinterpret(UInt64, x), UInt64(0))
bits(x::Bool) = (UInt64(x), UInt64(0))
bits(x::ComplexF64) = (reinterpret(UInt64, real(x)), reinterpret(UInt64, imag(x)))

pad(t::Tuple) = ntuple(k -> k <= length(t) ? Int64(t[k]) : Int64(0), VR_MAX_NDIMS)

to_value(x::Number) = VrValue(VR_KIND_SCALAR, elem_code(typeof(x)), bits(x), EMPTY_ARRAY)

function to_value(x::Array{T,N}) where {T,N}
    a = VrArray(pointer(x), elem_code(T), N, pad(size(x)), pad(strides(x)), VR_LAYOUT_COL, VR_ARRAY_WRITEABLE, C_NULL)
    VrValue(VR_KIND_ARRAY, elem_code(T), (UInt64(0), UInt64(0)), a)
end

function scalar_of(v::VrValue)
    lo, hi = v.scalar
    e = v.elem
    e == VR_F64 && return reinterpret(Float64, lo)
    e == VR_I64 && return reinterpret(Int64, lo)
    e == VR_BOOL && return (lo & 0xff) != 0
    e == VR_C128 && return complex(reinterpret(Float64, lo), reinterpret(Float64, hi))
    e == VR_I32 && return reinterpret(Int32, UInt32(lo & 0xffffffff))
    e == VR_F32 && return reinterpret(Float32, UInt32(lo & 0xffffffff))
    error("unknown element type code $e")
end

"""A result as a Julia value (arrays copied out of the library's memory, then freed)."""
function from_value(v::VrValue)
    v.kind == VR_KIND_SCALAR && return scalar_of(v)
    a = v.array
    T = julia_type(a.elem)
    dims = ntuple(k -> Int(a.dims[k]), Int(a.ndims))
    out = Array{T}(undef, dims...)
    src = Ptr{T}(a.data)
    for (k, I) in enumerate(CartesianIndices(out))
        offset = sum((I[d] - 1) * a.strides[d] for d in 1:length(dims); init = 0)
        out[k] = unsafe_load(src, offset + 1)
    end
    array_free(v)
    return out
end
