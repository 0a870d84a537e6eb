# Spectral norm (Benchmarks Game), the rbenchmark port's shape: setup(args) parses the
# size, run(n) defines its matrix-vector helpers inside itself and loops.
# corpus-call: run(setup("50"))

setup <- function(args = "100") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 100L
    n
}

run <- function(n = 100) {
    # entry (i, j) of the infinite matrix A, 1-based
    eval_A <- function(i, j) {
        1.0 / (0.5 * ((i + j - 2) * (i + j - 1)) + i)
    }

    times_u <- function(src) {
        dest <- numeric(n)
        for (i in 1:n) {
            acc <- 0.0
            for (j in 1:n) acc <- acc + src[j] * eval_A(i, j)
            dest[i] <- acc
        }
        dest
    }

    times_transp_u <- function(src) {
        dest <- numeric(n)
        for (i in 1:n) {
            acc <- 0.0
            for (j in 1:n) acc <- acc + src[j] * eval_A(j, i)
            dest[i] <- acc
        }
        dest
    }

    u <- rep(1.0, n)
    v <- numeric(n)
    for (iter in 1:10) {
        v <- times_transp_u(times_u(u))
        u <- times_transp_u(times_u(v))
    }

    uv <- 0.0
    vv <- 0.0
    for (i in 1:n) {
        uv <- uv + u[i] * v[i]
        vv <- vv + v[i] * v[i]
    }
    sqrt(uv / vv)
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    cat("spectral-norm(", n, ") = ", format(run(n), digits = 10), "\n", sep = "")
}
