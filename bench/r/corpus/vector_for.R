# The ReactorLabs "simple" vector-for benchmark: vector(length = n) (a logical vector of
# FALSE) filled by x[[i]] <- i, which turns it integer in R.
# corpus-call: execute(100000L)

execute <- function(n) {
    x <- vector(length = n)
    for (i in 1:n) {
        x[[i]] <- i
    }
    x
}
