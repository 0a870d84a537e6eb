function skip_odd(n)
    s = 0
    for i in 1:n
        isodd(i) && continue
        s += i
    end
    return s
end

