function powers(x, n)
    return x^2, x^3, x^n, 2.0^n
end

