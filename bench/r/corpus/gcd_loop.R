# The rbenchmark "scalar" GCD: pairs of integers drawn with runif() and as.integer(),
# Euclid's algorithm by a while loop on each pair; it print()s the count, and here also
# returns the sum of the divisors so that the loop's work is checked.
# corpus-call: run(setup("15000"))

setup <- function(args = "100000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 100000L
    n
}

run <- function(l = 100000) {
    a <- as.integer(runif(l, 1, 1000000000))
    b <- as.integer(runif(l, 1, 1000000000))
    total <- 0
    for (i in 1:l) {
        m <- a[i]
        n <- b[i]
        while (n != 0) {
            t <- m
            m <- n
            n <- t %% n
        }
        total <- total + m
    }
    print(l)
    total
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    run(n)
}
