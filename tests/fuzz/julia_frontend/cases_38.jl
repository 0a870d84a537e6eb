function scale!(x, a)
    for i in eachindex(x)
        x[i] *= a
    end
    return nothing
end

