# The loop versions of sum, mean, variance and cumulative sum that Advanced R's
# "Rewriting R code in C++" and the cpp4r statistics vignette start from: top-level
# helpers sum_r(), mean_r() (which calls sum_r()), var_r() and cumsum_r(), combined by a
# driver that returns a named vector.
# corpus-call: summary_r(x_data(50000))

sum_r <- function(x) {
    total <- 0
    for (i in seq_along(x)) {
        total <- total + x[i]
    }
    total
}

mean_r <- function(x) {
    sum_r(x) / length(x)
}

var_r <- function(x) {
    m <- mean_r(x)
    ss <- 0
    for (i in seq_along(x)) ss <- ss + (x[i] - m)^2
    ss / (length(x) - 1)
}

cumsum_r <- function(x) {
    out <- numeric(length(x))
    out[1] <- x[1]
    for (i in 2:length(x)) {
        out[i] <- out[i - 1] + x[i]
    }
    out
}

summary_r <- function(x) {
    cs <- cumsum_r(x)
    c(sum = sum_r(x), mean = mean_r(x), var = var_r(x), last = cs[length(cs)])
}

x_data <- function(n) runif(n)
