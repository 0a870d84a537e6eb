# The rbenchmark "mathkernel" matrix-matrix multiply, iterative method: setup() draws
# two matrices with rnorm() and returns list(A, B, n); run(data) unpacks the list with
# [[ ]] and multiplies with a triple loop into a matrix allocated by matrix().
# corpus-call: run(setup("40"))

setup <- function(args = "200") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 200L
    cat("Matrix-Matrix Multiply of two", n, "x", n, "matrices, iterative method\n")
    A <- matrix(rnorm(n * n), ncol = n, nrow = n)
    B <- matrix(rnorm(n * n), ncol = n, nrow = n)
    list(A, B, n)
}

run <- function(data) {
    A <- data[[1]]
    B <- data[[2]]
    n <- data[[3]]
    C <- matrix(0, ncol = n, nrow = n)
    for (i in 1:n) {
        for (j in 1:n) {
            v <- 0
            for (k in 1:n) {
                v <- v + A[i, k] * B[k, j]
            }
            C[i, j] <- v
        }
    }
    C
}

if (!exists("harness_argc")) {
    data <- setup(commandArgs(TRUE))
    run(data)
}
