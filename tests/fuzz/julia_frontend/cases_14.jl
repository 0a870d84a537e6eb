function compare_all(a, b)
    return (a < b, a <= b, a > b, a >= b, a == b, a != b)
end

