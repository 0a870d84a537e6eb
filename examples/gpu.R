# A GPU section in R: 1-D diffusion, written as an R user writes it, with the time steps
# inside `gpu({ ... })`. In R, `gpu()` and `prange()` are plain functions (the code runs
# unchanged); compiled by vr_compile(), the `prange` loop becomes an OpenCL kernel, the
# element-wise expression and `max()` library kernels, and the data stays on the device
# between steps (scripts/demo.sh runs examples/gpu-demo.R).
smooth <- function(u, steps, alpha) {
  n <- length(u)
  v <- u
  gpu({
    for (s in seq_len(steps)) {
      for (i in prange(n - 2)) {
        v[i + 1] <- u[i + 1] + alpha * (u[i] - 2 * u[i + 1] + u[i + 2])
      }
      u <- v
    }
    w <- u * u + 1
    top <- max(w)
    energy <- sum(w)
  })
  c(energy, top)
}
