row_of(A, i) = A[i, :]

