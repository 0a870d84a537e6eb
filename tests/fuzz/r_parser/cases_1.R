# R functions compiled by the R front end's tests. Every function here also runs in R
# itself (core/tests/frontend_r_semantics.rs runs Rscript on this file), so this file
# must stay plain R. `prange` and `gpu` are the marker functions of the R package:
#   prange <- function(n) seq_len(n); gpu <- function(expr) invisible(expr)

