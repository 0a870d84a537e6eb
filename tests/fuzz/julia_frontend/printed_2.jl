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
