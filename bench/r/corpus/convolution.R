# Convolution of two vectors, the loop from "Writing R Extensions" as the ReactorLabs
# suite runs it (RealThing/convolution.r): convolve() coerces with as.double(), grows
# nothing, and execute(n) calls it ten times, picking one element with [[ ]] and
# cat()ing a checksum.
# corpus-call: execute(200L)

convolve <- function(a, b) {
    a <- as.double(a)
    b <- as.double(b)
    na <- length(a)
    nb <- length(b)
    ab <- double(na + nb)
    for (i in 1:na)
        for (j in 1:nb)
            ab[i + j] <- ab[i + j] + a[i] * b[j]
    ab
}

execute <- function(n) {
    a <- 1:n
    b <- 1:n
    checksum <- 0
    for (i in 1:10) {
        checksum <- checksum + convolve(a, b)[[n]]
    }
    cat("Convolution ", n, " ", checksum, ": ")
    checksum
}
