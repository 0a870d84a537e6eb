function sumsq(x::Vector{Float64})
    s = 0.0
    @inbounds for i in eachindex(x)
        s += x[i]^2
    end
    return s
end

