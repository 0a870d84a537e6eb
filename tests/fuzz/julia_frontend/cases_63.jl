eq_arrays(x, y) = x == y

# ---- comprehensions and generators ----
