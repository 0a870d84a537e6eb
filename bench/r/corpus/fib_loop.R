# The rbenchmark "scalar" Fibonacci: the 1000th Fibonacci number by a scalar loop,
# recomputed `rep` times, the answer print()ed.
# corpus-call: run(setup("200"))

setup <- function(args = "1000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 1000L
    n
}

run <- function(rep = 1000) {
    n <- 1000
    for (i in 1:rep) {
        a <- 1
        b <- 1
        for (j in 1:n) { t <- a; a <- b; b <- b + t }
    }
    print(b)
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    run(n)
}
