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
