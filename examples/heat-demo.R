# The main job of scripts/demo.sh: an ordinary R function (examples/heat.R, 2-D heat
# diffusion with loops over a matrix) compiled by the R package with vr_compile(),
# checked against R's own result, R's time next to the compiled one.
library(velociraptor)
source(file.path("examples", "heat.R"))

n <- 100
steps <- 200
heat_c <- vr_compile(heat)

t_first <- system.time(first <- heat_c(n, steps))[["elapsed"]]
t_r <- system.time(in_r <- heat(n, steps))[["elapsed"]]
t_c <- median(vapply(1:5, function(k) system.time(heat_c(n, steps))[["elapsed"]], 0))
compiled <- heat_c(n, steps)

cat(sprintf("heat(%d, %d) in R:               %.17g  %.3f s\n", n, steps, in_r, t_r))
cat(sprintf("heat(%d, %d) compiled:           %.17g  %.3f s (median of 5; first call with compile: %.3f s)\n",
  n, steps, compiled, t_c, t_first))
# R's sum() accumulates in long double, compiled code in double: equal to 1e-12 relative.
if (!isTRUE(all.equal(compiled, in_r, tolerance = 1e-12)) || !identical(first, compiled)) {
  stop("the compiled result differs from R's")
}
cat(sprintf("same result as R; compiled is %.0fx faster than R\n", t_r / max(t_c, 1e-4)))
