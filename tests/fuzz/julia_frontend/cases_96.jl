function simd_sum(x)
    s = 0
    @inbounds @simd for i in eachindex(x)
        s += x[i]
    end
    s
end

