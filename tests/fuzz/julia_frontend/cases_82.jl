row_vector(x) = x'

