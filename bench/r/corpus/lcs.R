# Length of the longest common subsequence by dynamic programming, as in Rosalind
# solutions in R (after zshane57/rosalind_R rosalind_32_LCSQ.r) but on integer-coded
# sequences: a (m + 1) x (n + 1) table from matrix(0, ...), max() of two neighbours.
# corpus-call: lcs_length(seq_a(200), seq_b(200))

lcs_length <- function(s, t) {
    m <- length(s)
    n <- length(t)
    dp <- matrix(0, nrow = m + 1, ncol = n + 1)
    for (i in 1:m) {
        for (j in 1:n) {
            if (s[i] == t[j]) {
                dp[i + 1, j + 1] <- dp[i, j] + 1
            } else {
                dp[i + 1, j + 1] <- max(dp[i, j + 1], dp[i + 1, j])
            }
        }
    }
    dp[m + 1, n + 1]
}

seq_a <- function(n) sample(1:4, n, replace = TRUE)
seq_b <- function(n) sample(1:4, n, replace = TRUE)
