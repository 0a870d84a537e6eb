col_of(A, j) = A[:, j]

