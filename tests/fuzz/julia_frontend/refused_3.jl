function grows(x)
    push!(x, 1.0)
    return x
end

