function view_written(A)
    v = @view A[:, 1]
    v[1] = 0.0
    return A
end

