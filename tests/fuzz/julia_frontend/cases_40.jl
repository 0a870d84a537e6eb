function slice_copies(x)
    y = x[1:2]
    y[1] = -1.0
    return x[1]
end

