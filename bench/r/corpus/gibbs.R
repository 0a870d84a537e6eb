# Darren Wilkinson's Gibbs sampler as R users know it from Advanced R's Rcpp chapter and
# the Rcpp examples: a result matrix(nrow = N, ncol = 2) filled row by row with c(x, y),
# each draw from rgamma(1, ...) and rnorm(1, ...) with R's generator, thinned by an
# inner loop.
# corpus-call: gibbs_r(400, 10)

gibbs_r <- function(N, thin) {
    draws <- matrix(nrow = N, ncol = 2)
    x <- 0
    y <- 0
    for (i in 1:N) {
        for (j in 1:thin) {
            x <- rgamma(1, 3, y * y + 4)
            y <- rnorm(1, 1 / (x + 1), 1 / sqrt(2 * (x + 1)))
        }
        draws[i, ] <- c(x, y)
    }
    draws
}
