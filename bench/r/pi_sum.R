# pi_sum of the JuliaLang microbenchmarks in R: reps times, the sum of 1/k^2 for
# k = 1..n (the answer approaches pi^2/6).
pi_sum <- function(reps, n) {
  s <- 0
  for (j in seq_len(reps)) {
    s <- 0
    for (k in seq_len(n)) {
      s <- s + 1 / (k * k)
    }
  }
  s
}
