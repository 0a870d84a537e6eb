function float_range()
    s = 0.0
    for t in 0:0.1:1
        s += t
    end
    return s
end

