# Julia functions compiled by the front end in core/tests/frontend_julia_*.rs.
# Expected values there come from hand calculation or from R (Rscript) on the same
# inputs, never from our own interpreter alone. The file is also a script: the
# top-level code below the functions is stepped over by the compiler.
using LinearAlgebra
using Test

const SCALE = 2.5
const LIMIT = 10

# ---- arithmetic ----
