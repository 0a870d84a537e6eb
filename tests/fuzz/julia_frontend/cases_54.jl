function bounds(x, i)
    return x[i]
end

