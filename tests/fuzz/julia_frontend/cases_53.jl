function undef_vector(n)
    v = Vector{Float64}(undef, n)
    for i in 1:n
        v[i] = i / 2
    end
    return v
end

