# The rbenchmark "scalar" Chinese remainder: gcd() and lcm() defined inside run(), the
# smallest r with r %% (k + 1) == k for k = 1..n found by stepping, repeated
# `repcount` times, the answer print()ed.
# corpus-call: run(setup("40"))

setup <- function(args = "100") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 100L
    n
}

run <- function(repcount = 100) {
    gcd <- function(m, n) {
        while (n != 0) {
            t <- n
            n <- m %% n
            m <- t
        }
        m
    }
    lcm <- function(m, n) {
        m * n / gcd(m, n)
    }

    n <- 20
    residual <- 1:n
    divisor <- residual + 1
    for (iter in 1:repcount) {
        a <- divisor[1]
        r <- residual[1]
        for (i in 2:n) {
            while (r %% divisor[i] != residual[i]) {
                r <- r + a
            }
            a <- lcm(a, divisor[i])
        }
    }
    print(r)
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    run(n)
}
