# The ReactorLabs "simple" matrix-for benchmark: a matrix made with
# matrix(nrow = , ncol = ) (so logical NA) and filled element by element with [[i, j]]<-,
# which turns it double. Here each cell gets i + j / n so the result says something.
# corpus-call: execute(200L)

execute <- function(n) {
    x <- matrix(nrow = n, ncol = n)
    for (i in 1:n) {
        for (j in 1:n) {
            x[[i, j]] <- i + j / n
        }
    }
    x
}
