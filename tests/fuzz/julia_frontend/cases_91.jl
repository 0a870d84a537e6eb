function enum_sum(x)
    s = 0.0
    for (i, v) in enumerate(x)
        s += i * v
    end
    return s
end

