gen_count(x) = count(v < 0 for v in x)

# ---- library ----
