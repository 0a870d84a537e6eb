function first_over(x, t)
    k = 0
    for i in 1:length(x)
        if x[i] > t
            k = i
            break
        end
    end
    return k
end

