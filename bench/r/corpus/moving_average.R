# A centred moving average as package authors write it in R before moving it to C++
# (after movmean_R in CUG-atmos/movmean): the result grown from c() by y[i] <- ...,
# windows shrinking at both ends, sum() of a slice divided by its length.
# corpus-call: movmean_r(x_data(20000), 5)

movmean_r <- function(x, halfwin) {
    m <- halfwin
    n <- length(x)
    win <- 2 * m + 1
    y <- c()
    for (i in 1:n) {
        if (i >= (m + 1) & i <= (n - m)) {
            y[i] <- sum(x[(i - m):(i + m)]) / win
        } else if (i < (m + 1)) {
            ind <- 1:(i + m)
            y[i] <- sum(x[ind]) / length(ind)
        } else {
            ind <- (i - m):n
            y[i] <- sum(x[ind]) / length(ind)
        }
    }
    y
}

x_data <- function(n) cumsum(rnorm(n))
