function ends(A)
    return A[end], A[end, 1], A[1, end]
end

