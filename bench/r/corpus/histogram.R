# Histogram counting in the shape of the Riposte benchmark (rbenchmark's
# riposte/histogram.R): setup() draws integer data with as.integer(runif(n, 0, 100));
# where Riposte calls tabulate(), this run() counts with the loop R users write, into
# a vector from integer(), and cat()s the number of bins.
# corpus-call: run(setup("100000"))

setup <- function(args = "10000000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 10000000L
    cat("[histogram]n =", n, "\n")
    data <- as.integer(runif(n, 0, 100))
    data
}

run <- function(data) {
    counts <- integer(100)
    for (v in data) {
        counts[v + 1L] <- counts[v + 1L] + 1L
    }
    cat(length(counts), "\n")
    counts
}

if (!exists("harness_argc")) {
    dataset <- setup(commandArgs(TRUE))
    run(dataset)
}
