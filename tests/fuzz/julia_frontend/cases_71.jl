bool_sum(x) = sum(x .> 1.5)

