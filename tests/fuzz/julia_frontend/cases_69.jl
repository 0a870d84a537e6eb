function reductions(x)
    return sum(x), prod(x), maximum(x), minimum(x)
end

