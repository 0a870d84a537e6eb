function guard(x)
    x > 0 || error("x must be positive")
    return sqrt(x)
end

