function alias_write(x)
    y = x
    y[1] = 100.0
    return x[1]
end

