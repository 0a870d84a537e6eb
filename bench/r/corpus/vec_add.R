# The rbenchmark "mathkernel" vector add, iterative method: setup() returns
# list(A, B, n) of rnorm() vectors, run(data) allocates with vector("double", n) and adds
# element by element.
# corpus-call: run(setup("100000"))

setup <- function(args = "10000000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 10000000L
    cat("Vector Add two", n, "size vectors, iterative method\n")
    A <- rnorm(n)
    B <- rnorm(n)
    list(A, B, n)
}

run <- function(data) {
    A <- data[[1]]
    B <- data[[2]]
    n <- data[[3]]
    C <- vector("double", n)
    for (i in 1:n) {
        C[i] <- A[i] + B[i]
    }
    C
}

if (!exists("harness_argc")) {
    data <- setup(commandArgs(TRUE))
    run(data)
}
