# scripts/demo.sh: the R function with a gpu({ ... }) section (examples/gpu.R) compiled
# by vr_compile() and run where its section can run: on a GPU when there is one, else on
# any OpenCL device (PoCL's CPU device here and in CI), else on the CPU; the output says
# which. Checked against R's own result.
library(velociraptor)
source(file.path("examples", "gpu.R"))

vr_options(gpu = "on")
cat("gpu sections:", vr_stats()$gpu, "\n")
n <- 200000
steps <- 50
u0 <- sin(seq_len(n) / 1000)^2
smooth_c <- vr_compile(smooth)

t_r <- system.time(in_r <- smooth(u0, steps, 0.2))[["elapsed"]]
t_first <- system.time(first <- smooth_c(u0, steps, 0.2))[["elapsed"]]
t_c <- median(vapply(1:3, function(k) system.time(smooth_c(u0, steps, 0.2))[["elapsed"]], 0))
compiled <- smooth_c(u0, steps, 0.2)
cat(sprintf("smooth(%d points, %d steps) in R:     %.17g %.17g  %.3f s\n", n, steps, in_r[1], in_r[2], t_r))
cat(sprintf("smooth(%d points, %d steps) compiled: %.17g %.17g  %.3f s (median of 3; first call with compile: %.3f s)\n",
  n, steps, compiled[1], compiled[2], t_c, t_first))
# The section's arithmetic is + - * only (exact on every OpenCL device), max() is exact,
# and sum() folds in R's long double on the CPU: the same numbers as R.
if (!identical(compiled, in_r) || !identical(first, compiled)) stop("the compiled result differs from R's")
cat("same result as R\n")
report <- strsplit(vr_explain(smooth_c, vrir = FALSE)[[1]]$report, "\n", fixed = TRUE)[[1]]
cat(grep("^(backend|gpu)", report, value = TRUE), sep = "\n")
