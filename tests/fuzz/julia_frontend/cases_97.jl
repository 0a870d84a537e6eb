function fast_norm2(x)
    s = 0.0
    @fastmath for v in x
        s += v * v
    end
    return sqrt(s)
end

