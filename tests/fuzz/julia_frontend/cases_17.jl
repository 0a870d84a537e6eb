function count_steps(a, s, b)
    n = 0
    for i in a:s:b
        n += i
    end
    return n
end

