linear_index(A, k) = A[k]

