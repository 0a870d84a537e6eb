function nested_sum(m, n)
    s = 0
    for i in 1:m, j in 1:n
        s += i * j
    end
    return s
end

