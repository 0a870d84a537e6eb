# Julia the front end refuses, each with the construct and its line named
# (core/tests/frontend_julia_diagnostics.rs). The adapter runs these in Julia.
counter = 0
counter = 1

function prints(x)
    println("x = ", x)
    return x
end

function grows(x)
    push!(x, 1.0)
    return x
end

lambda(x) = map(v -> v^2, x)

function float_range()
    s = 0.0
    for t in 0:0.1:1
        s += t
    end
    return s
end

function loop_local(n)
    for i in 1:n
        last = i
    end
    return last
end

function view_written(A)
    v = @view A[:, 1]
    v[1] = 0.0
    return A
end

area(r::Float64) = pi * r^2
area(s::Int) = s * s

function int_condition(n)
    if n
        return 1
    end
    return 0
end

scalar_sin(x) = sin(x)

vector_plus(x) = x + 1

fields(z) = z.re

float32() = 1f0

reads_global(x) = x + counter

function broken(x)
    y = (x +
end

strings(x) = string(x)

rank_change(x) = x .+ [1.0 2.0]

function declared_local(x)
    z::ComplexF64 = x
    return z
end
