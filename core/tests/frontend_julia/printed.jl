# What Velociraptor.jl hands the compiler: definitions as Julia prints them (string(ex)),
# with the `#= FILE:LINE =#` comments that carry the lines of the user's file.
#= /home/u/f.jl:3 =#
function scale!(x::Vector{Float64}, a)
    #= /home/u/f.jl:3 =#
    #= /home/u/f.jl:4 =#
    for i = eachindex(x)
        #= /home/u/f.jl:5 =#
        x[i] *= a
        #= /home/u/f.jl:6 =#
    end
    #= /home/u/f.jl:7 =#
    return nothing
end

#= /home/u/f.jl:10 =#
fib(n) = begin
        #= /home/u/f.jl:10 =#
        if n < 2
            n
        else
            fib(n - 1) + fib(n - 2)
        end
    end

#= /home/u/f.jl:12 =#
function g(x)
    #= /home/u/f.jl:13 =#
    y = similar(x)
    #= /home/u/f.jl:14 =#
    #= /home/u/f.jl:14 =# @__dot__ y = x ^ 2 + 3x
    #= /home/u/f.jl:15 =#
    Threads.@threads #= /home/u/f.jl:15 =# for i = 1:length(x)
            #= /home/u/f.jl:16 =#
            y[i] += x[end]
        end
    #= /home/u/f.jl:18 =#
    return (y, [i ^ 2 for i = 1:3])
end
function h(x::T) where T <: Real
    x[10]
end
