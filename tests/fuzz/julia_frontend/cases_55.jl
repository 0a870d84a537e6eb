function store_float!(x)
    x[1] = 2.0
    x[2] = 2.5
    return x
end

# ---- broadcasting ----
