function arith(a, b)
    return a + b, a - b, a * b, a / b
end

