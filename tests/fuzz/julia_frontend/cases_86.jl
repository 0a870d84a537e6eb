mandel(c) = begin
    z = c
    for n in 1:80
        if abs(z) > 2
            return n - 1
        end
        z = z^2 + c
    end
    return 80
end

