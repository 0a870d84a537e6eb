function minmax2(x)
    lo = x[1]
    hi = x[1]
    for v in x
        lo = min(lo, v)
        hi = max(hi, v)
    end
    return lo, hi
end

