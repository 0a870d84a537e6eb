function int_condition(n)
    if n
        return 1
    end
    return 0
end

