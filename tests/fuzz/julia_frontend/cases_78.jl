mat_mul(A, B) = A * B

