function swap(a, b)
    a, b = b, a
    return a - b
end

