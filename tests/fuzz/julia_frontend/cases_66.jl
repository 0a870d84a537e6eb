gen_sum(x) = sum(v^2 for v in x)

