function view_sum(A, j)
    v = @view A[:, j]
    return sum(v)
end

