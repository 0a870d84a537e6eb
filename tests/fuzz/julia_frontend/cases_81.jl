transposed(A) = transpose(A)

