# 2-D heat diffusion, written as an R user writes it: a matrix, loops, time steps.
# scripts/demo.sh compiles it with `vr run examples/heat.R heat` and runs it in R too.
heat <- function(n, steps) {
  u <- matrix(0, n, n)
  u[n %/% 2, n %/% 2] <- 1000
  for (s in seq_len(steps)) {
    v <- u
    for (j in 2:(n - 1)) {
      for (i in 2:(n - 1)) {
        v[i, j] <- u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j])
      }
    }
    u <- v
  }
  sum(u * u)
}
