# Levenshtein distance by dynamic programming (the R version passed around on R-help
# and collected on Wikibooks), here on integer codes rather than substr() of strings:
# a matrix initialised by row and column assignment, min() of three neighbours, an
# if/else as a value for the cost.
# corpus-call: levenshtein(seq_a(200), seq_b(180))

levenshtein <- function(a, b) {
    an <- length(a) + 1
    bn <- length(b) + 1
    if (length(a) == 0) return(length(b))
    if (length(b) == 0) return(length(a))
    m <- matrix(0, nrow = an, ncol = bn)
    m[1, ] <- 0:(bn - 1)
    m[, 1] <- 0:(an - 1)
    for (i in 2:an) {
        for (j in 2:bn) {
            cost <- if (a[i - 1] != b[j - 1]) 1 else 0
            m[i, j] <- min(m[i - 1, j] + 1, m[i, j - 1] + 1, m[i - 1, j - 1] + cost)
        }
    }
    m[an, bn]
}

seq_a <- function(n) sample(1:4, n, replace = TRUE)
seq_b <- function(n) sample(1:4, n, replace = TRUE)
