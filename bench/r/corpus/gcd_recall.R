# R Benchmark 2.5, "Greatest common divisors of pairs (recursion)": a vectorised
# Euclid written as a one-line recursive helper inside run() that calls itself through
# Recall(), on pairs drawn with runif() and ceiling().
# corpus-call: run(3, 40000)

run <- function(runs = 3, n = 400000) {
    cat("Greatest common divisors of pairs (recursion)\n")
    gcd2 <- function(x, y) {
        if (sum(y > 1.0E-4) == 0) x else { y[y == 0] <- x[y == 0]; Recall(y, x %% y) }
    }
    for (i in 1:runs) {
        a <- ceiling(runif(n) * 1000)
        b <- ceiling(runif(n) * 1000)
        g <- gcd2(a, b)
    }
    g
}
