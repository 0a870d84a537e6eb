function use_minmax(x)
    lo, hi = minmax2(x)
    return hi - lo
end

