# Velociraptor.jl's tests. They need Julia and the C library (VELOCIRAPTOR_LIB, or
# Pkg.build("Velociraptor")); without the library every test is reported as skipped,
# never as passed. The compiler underneath is tested in Rust (core/tests/frontend_julia_*,
# capi/tests/julia.rs); these check the package: the macro, the call path without copies,
# errors, fallback and the cache.
using Test
using Velociraptor

if !Velociraptor.available()
    @testset "Velociraptor.jl (C library not found: every test skipped)" begin
        @test_skip Velociraptor.available()
    end
else

@vr function scale!(x::Vector{Float64}, a)
    for i in eachindex(x)
        x[i] *= a
    end
    return nothing
end

@vr function sumsq(x::Vector{Float64})
    s = 0.0
    for i in eachindex(x)
        s += x[i]^2
    end
    return s
end

@vr fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

@vr begin
    function minmax2(x)
        lo = x[1]
        hi = x[1]
        for v in x
            lo = min(lo, v)
            hi = max(hi, v)
        end
        return lo, hi
    end
    function spread(x)
        lo, hi = minmax2(x)
        return hi - lo
    end
end

const GET_RETURN_LINE = @__LINE__() + 2
@vr function get(x, i)
    return x[i]
end

@vr function prints(x)
    println("x = ", x)
    return x
end

@vr fallback=false function prints_strict(x)
    println(x)
    return x
end

@vr function par_square!(out, x)
    Threads.@threads for i in eachindex(x)
        out[i] = x[i] * x[i]
    end
    return out
end

@vr squares(n) = [i^2 for i in 1:n]

@testset "Velociraptor.jl" begin
    @testset "arrays are passed by reference, without a copy" begin
        x = [1.0, 2.0, 4.0]
        @test scale!(x, 0.5) === nothing
        @test x == [0.5, 1.0, 2.0]
        y = [1.0, 2.0, 3.0]
        out = zeros(3)
        @test par_square!(out, y) == [1.0, 4.0, 9.0]
        @test out == [1.0, 4.0, 9.0]
    end
    @testset "results as Julia gives them" begin
        @test sumsq([1.0, 2.0, 3.5]) == 17.25
        @test fib(20) === 6765
        @test squares(4) == [1, 4, 9, 16]
        @test squares(4) isa Vector{Int}
        @test minmax2([3.0, -1.0, 7.0]) == (-1.0, 7.0)
        @test minmax2([-0.0, 0.0]) === (-0.0, 0.0)
        @test minmax2([0.0, -0.0]) === (-0.0, 0.0)
        @test spread([3.0, -1.0, 7.0]) == 8.0
    end
    @testset "errors name function, line, variable, index and bound" begin
        err = try
            get([1.0, 2.0], 3)
            nothing
        catch e
            e
        end
        @test err isa VelociraptorError
        @test err.status == :out_of_bounds
        @test err.func == "get"
        @test err.variable == "x"
        @test err.index == 3
        @test err.bound == 2
        @test err.line == GET_RETURN_LINE
        @test occursin("BoundsError", err.message)
    end
    @testset "what does not compile runs as Julia, with a warning naming it" begin
        @test_logs (:warn, r"println") match_mode = :any (@test prints(2.0) == 2.0)
        @test_throws VelociraptorError prints_strict(2.0)
    end
    @testset "one compile per argument types, then the cache" begin
        before = Velociraptor.stats()
        sumsq([1.0])
        sumsq([2.0, 3.0])
        after = Velociraptor.stats()
        @test after.compiles == before.compiles
        @test occursin("(module", Velociraptor.vrir(sumsq, [1.0]))
        @test isdir(Velociraptor.cache_dir())
    end
end

end # if available
