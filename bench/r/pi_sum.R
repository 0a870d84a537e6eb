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

# The same in R's vector style (issue 18, bench/r/array_style.R): the inner loop as sum() over a vector.
pi_sum_vec <- function(reps, n) {
  s <- 0
  for (j in seq_len(reps)) {
    k <- seq_len(n)
    s <- sum(1 / (k * k))
  }
  s
}
