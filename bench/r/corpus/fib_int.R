# The Julia micro-benchmarks' R "recursion_fibonacci" (perf.R), which R writes as a
# loop: early return()s for small n, an integer(n) table whose first two entries are set
# with a slice assignment of c(1L, 1L), integer additions.
# corpus-call: fib(25)

fib <- function(n) {
    if (n < 2) return(n)
    if (n == 2) return(1)
    f <- integer(n)
    f[1:2] <- c(1L, 1L)
    for (i in 3:n) f[i] <- f[i - 1] + f[i - 2]
    return(f[n])
}
