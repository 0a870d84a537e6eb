# Julia functions compiled by the front end in core/tests/frontend_julia_*.rs.
# Expected values there come from hand calculation or from R (Rscript) on the same
# inputs, never from our own interpreter alone. The file is also a script: the
# top-level code below the functions is stepped over by the compiler.
using LinearAlgebra
using Test

const SCALE = 2.5
const LIMIT = 10

# ---- arithmetic ----
function arith(a, b)
    return a + b, a - b, a * b, a / b
end

int_ops(a, b) = (a ÷ b, a % b, mod(a, b), fld(a, b), cld(a, b))

float_mods(x, y) = (x % y, mod(x, y), rem(x, y))

wrap_add(a) = a + 1

wrap_mul(a, b) = a * b

function powers(x, n)
    return x^2, x^3, x^n, 2.0^n
end

int_pow(x, n) = x^n

inv_pow(x) = x^-1 + x^-2

float_pow(x, y) = x^y

bool_arith(a, b) = a + b, a * 3, -a

bits(a, b) = (a & b, a | b, a ⊻ b, ~a)

shifts(a, n) = (a << n, a >> n, a >>> n)

function compare_all(a, b)
    return (a < b, a <= b, a > b, a >= b, a == b, a != b)
end

chained(a, b, c) = a < b <= c

# ---- control flow ----
function sumsq(x::Vector{Float64})
    s = 0.0
    @inbounds for i in eachindex(x)
        s += x[i]^2
    end
    return s
end

function count_steps(a, s, b)
    n = 0
    for i in a:s:b
        n += i
    end
    return n
end

function empty_range(n)
    s = 0
    for i in 5:n
        s += 1
    end
    s
end

function collatz(n)
    steps = 0
    while n != 1
        if n % 2 == 0
            n = n ÷ 2
        else
            n = 3n + 1
        end
        steps += 1
    end
    return steps
end

function first_over(x, t)
    k = 0
    for i in 1:length(x)
        if x[i] > t
            k = i
            break
        end
    end
    return k
end

function skip_odd(n)
    s = 0
    for i in 1:n
        isodd(i) && continue
        s += i
    end
    return s
end

function classify(x)
    if x < 0
        return -1
    elseif x == 0
        return 0
    else
        return 1
    end
end

sign_of(x) = x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0)

function guard(x)
    x > 0 || error("x must be positive")
    return sqrt(x)
end

function asserted(x)
    @assert x >= 0 "x is negative"
    return x * 2
end

fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

function even_odd(n)
    return is_even(n)
end
is_even(n) = n == 0 ? true : is_odd(n - 1)
is_odd(n) = n == 0 ? false : is_even(n - 1)

function nested_sum(m, n)
    s = 0
    for i in 1:m, j in 1:n
        s += i * j
    end
    return s
end

function let_block(x)
    y = let t = x * 2
        t + 1
    end
    return y
end

# ---- arrays ----
function fill_matrix(m, n)
    A = zeros(m, n)
    for j in 1:n
        for i in 1:m
            A[i, j] = 10i + j
        end
    end
    return A
end

col_of(A, j) = A[:, j]

row_of(A, i) = A[i, :]

last_two(x) = x[end-1:end]

function ends(A)
    return A[end], A[end, 1], A[1, end]
end

linear_index(A, k) = A[k]

function scale!(x, a)
    for i in eachindex(x)
        x[i] *= a
    end
    return nothing
end

function alias_write(x)
    y = x
    y[1] = 100.0
    return x[1]
end

function slice_copies(x)
    y = x[1:2]
    y[1] = -1.0
    return x[1]
end

function view_sum(A, j)
    v = @view A[:, j]
    return sum(v)
end

function swap_ends!(v)
    v[1], v[end] = v[end], v[1]
    return v
end

function swap(a, b)
    a, b = b, a
    return a - b
end

function minmax2(x)
    lo = x[1]
    hi = x[1]
    for v in x
        lo = min(lo, v)
        hi = max(hi, v)
    end
    return lo, hi
end

function use_minmax(x)
    lo, hi = minmax2(x)
    return hi - lo
end

function dims(A)
    m, n = size(A)
    return m * 10 + n, ndims(A), length(A)
end

gather(x) = x[[3, 1]]

mask(x) = x[x .> 0]

function builders(n)
    a = ones(Int, n)
    b = fill(2.5, n)
    c = similar(b)
    c .= 1.0
    return sum(a) + sum(b) + sum(c)
end

literals() = [1, 2, 3], [1.5 2.5], [1 2; 3 4]

vcat_vectors(x, y) = [x; y]

typed_empty() = length(Float64[])

function undef_vector(n)
    v = Vector{Float64}(undef, n)
    for i in 1:n
        v[i] = i / 2
    end
    return v
end

function bounds(x, i)
    return x[i]
end

function store_float!(x)
    x[1] = 2.0
    x[2] = 2.5
    return x
end

# ---- broadcasting ----
bcast(x, y) = x .+ 2 .* y

dotted_fn(x) = sin.(x) .+ cos.(x)

at_dot(x) = @. x^2 + 3x

function in_place!(y, x)
    y .= x .* 2
    y .+= 1
    return y
end

sq(v) = v * v

user_bcast(x) = sq.(x)

bad_bcast(x, y) = x .+ y

eq_arrays(x, y) = x == y

# ---- comprehensions and generators ----
squares(n) = [i^2 for i in 1:n]

table(m, n) = [i + 10j for i in 1:m, j in 1:n]

gen_sum(x) = sum(v^2 for v in x)

gen_any(x) = any(v > 2 for v in x)

gen_count(x) = count(v < 0 for v in x)

# ---- library ----
function reductions(x)
    return sum(x), prod(x), maximum(x), minimum(x)
end

col_sums(A) = sum(A; dims = 1)

bool_sum(x) = sum(x .> 1.5)

math1(x) = (sqrt(x), exp(x), log(x), sin(x), cos(x), atan(x), abs(-x))

two_arg(y, x) = (atan(y, x), hypot(y, x), min(y, x), max(y, x))

conversions(x) = (Int(round(x)), round(x), floor(Int, x), ceil(Int, x), trunc(Int, x), Float64(3))

to_int(x) = Int(x)

domain_sqrt(x) = sqrt(x)

domain_log(x) = log(x)

mat_mul(A, B) = A * B

mat_vec(A, x) = A * x

vdot(x, y) = dot(x, y)

transposed(A) = transpose(A)

row_vector(x) = x'

cumulative(x) = cumsum(x), cumprod(x)

function complex_ops(z, w)
    return z * w, z / w, abs(z), real(z * conj(w)), imag(z^2)
end

complex_build(re, im) = complex(re, im) * 2

mandel(c) = begin
    z = c
    for n in 1:80
        if abs(z) > 2
            return n - 1
        end
        z = z^2 + c
    end
    return 80
end

uses_consts(x) = x * SCALE + LIMIT

typed_arg(x::Int) = x + 1

limits() = typemax(Int), typemin(Int)

rev(x) = reverse(x)

function enum_sum(x)
    s = 0.0
    for (i, v) in enumerate(x)
        s += i * v
    end
    return s
end

function zip_dot(x, y)
    s = 0.0
    for (a, b) in zip(x, y)
        s += a * b
    end
    return s
end

# ---- parallel and GPU markers ----
function par_square!(out, x)
    Threads.@threads for i in eachindex(x)
        out[i] = x[i] * x[i]
    end
    return out
end

function gpu_scale(x, a)
    y = similar(x)
    @gpu begin
        for i in eachindex(x)
            y[i] = a * x[i]
        end
    end
    return y
end

function axes_sum(A)
    s = 0.0
    for j in axes(A, 2), i in axes(A, 1)
        s += A[i, j] * i
    end
    return s
end

function simd_sum(x)
    s = 0
    @inbounds @simd for i in eachindex(x)
        s += x[i]
    end
    s
end

function fast_norm2(x)
    s = 0.0
    @fastmath for v in x
        s += v * v
    end
    return sqrt(s)
end

function iter_sees_writes(x)
    s = 0.0
    for v in x
        x[end] = 100.0
        s += v
    end
    return s
end

# ---- top-level code the compiler steps over ----
@test fib(10) == 55
@time squares(3)
println("loaded")
x0 = rand(3)

# Julia orders -0.0 below 0.0 in max and min; clamp returns x unless it lies outside.
zero_ties(a, b) = (1 / max(a, b), 1 / min(a, b), 1 / clamp(a, b, 1.0))

# ---- ComplexF64 as a constructor, an annotation and an element type ----
to_complex(x) = ComplexF64(x)

complex_pair(re, im) = ComplexF64(re, im)

complex_parts(z::ComplexF64) = (real(z), imag(z), abs(z), conj(z))

function complex_norm2(v::Vector{ComplexF64})
    s = 0.0
    for z in v
        s += real(z * conj(z))
    end
    return s
end

function complex_ramp(n)
    z = zeros(ComplexF64, n)
    for k in 1:n
        z[k] = ComplexF64(k, -k)
    end
    z[1] = 2.5
    return z
end

complex_result(x)::ComplexF64 = 2x

typed_complex() = ComplexF64[1, 2.5]

complex_corner(A::Matrix{ComplexF64}) = A[1, 2] + A[2, 1]

function store_complex!(x, z)
    x[1] = z
    return nothing
end
