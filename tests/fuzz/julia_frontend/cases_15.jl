chained(a, b, c) = a < b <= c

# ---- control flow ----
