function empty_range(n)
    s = 0
    for i in 5:n
        s += 1
    end
    s
end

