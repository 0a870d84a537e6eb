col_sums(A) = sum(A; dims = 1)

