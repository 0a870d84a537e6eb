function axes_sum(A)
    s = 0.0
    for j in axes(A, 2), i in axes(A, 1)
        s += A[i, j] * i
    end
    return s
end

