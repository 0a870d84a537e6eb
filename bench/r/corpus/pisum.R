# The Julia micro-benchmarks' R "iteration_pi_sum" (perf.R): a doubly nested loop
# summing 1/k^2, the inner sum restarted 500 times.
# corpus-call: pisum()

pisum <- function() {
    t <- 0.0
    for (j in 1:500) {
        t <- 0.0
        for (k in 1:1000) {
            t <- t + 1.0 / (k * k)
        }
    }
    t
}
