function fill_matrix(m, n)
    A = zeros(m, n)
    for j in 1:n
        for i in 1:m
            A[i, j] = 10i + j
        end
    end
    return A
end

