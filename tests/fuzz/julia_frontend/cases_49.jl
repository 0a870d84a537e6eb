function builders(n)
    a = ones(Int, n)
    b = fill(2.5, n)
    c = similar(b)
    c .= 1.0
    return sum(a) + sum(b) + sum(c)
end

