function loop_local(n)
    for i in 1:n
        last = i
    end
    return last
end

