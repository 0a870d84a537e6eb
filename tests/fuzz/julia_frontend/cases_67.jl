gen_any(x) = any(v > 2 for v in x)

