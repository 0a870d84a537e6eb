# The Riposte 1-d filter benchmark (rbenchmark's riposte/): setup() draws the signal
# with runif(); run() defines filter() inside itself, which starts its accumulator as
# the scalar 0 and adds shifted slices of the signal times each tap; the length is cat()ed.
# corpus-call: run(setup("100000"))

setup <- function(args = "10000000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 10000000L
    cat("[filter1d]n =", n, "\n")
    a <- runif(n)
    a
}

run <- function(a) {
    filter <- function(v, f) {
        r <- 0
        for (i in 1L:length(f)) {
            r <- r + v[(1L + i):((length(v) - length(f)) + i)] * f[i]
        }
        r
    }
    res <- filter(a, c(0.1, 0.15, 0.2, 0.3, 0.2, 0.15, 0.1))
    cat(length(res), "\n")
    res
}

if (!exists("harness_argc")) {
    dataset <- setup(commandArgs(TRUE))
    run(dataset)
}
