function asserted(x)
    @assert x >= 0 "x is negative"
    return x * 2
end

