function classify(x)
    if x < 0
        return -1
    elseif x == 0
        return 0
    else
        return 1
    end
end

