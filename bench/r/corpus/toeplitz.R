# R Benchmark 2.5, "Creation of a Toeplitz matrix (loops)": the matrix allocated with
# rep() and given its shape through dim<-, then filled element by element.
# corpus-call: run(3, 150)

run <- function(runs = 3, n = 500) {
    cat("Creation of a", n, "x", n, "Toeplitz matrix (loops)\n")
    for (i in 1:runs) {
        b <- rep(0, n * n); dim(b) <- c(n, n)
        for (j in 1:n) {
            for (k in 1:n) {
                jk <- j - k
                b[k, j] <- abs(jk) + 1
            }
        }
    }
    b
}
