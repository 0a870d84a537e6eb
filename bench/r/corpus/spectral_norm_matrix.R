# Spectral norm with A built once as a matrix and products through %*%, in the shape of
# the FastR/ReactorLabs shootout ports: an `args` list, options(digits), helpers as
# closures over the cached matrix, the answer printed with cat().
# corpus-call: execute(80L)

spectralnorm_matrix <- function(args) {
    n <- if (length(args)) as.integer(args[[1]]) else 100L
    options(digits = 10)

    a_cache <- matrix(0, n, n)
    for (i in 1:n)
        for (j in 1:n)
            a_cache[[i, j]] <- 1 / ((i + j - 2) * (i + j - 1) / 2 + i)

    a_times_u <- function(u) u %*% t(a_cache)
    at_times_u <- function(u) u %*% a_cache
    ata_times_u <- function(u) at_times_u(a_times_u(u))

    u <- rep(1, n)
    v <- rep(0, n)
    for (itr in seq(10)) {
        v <- ata_times_u(u)
        u <- ata_times_u(v)
    }
    norm <- sqrt(sum(u * v) / sum(v * v))
    cat(norm, "\n")
    norm
}

execute <- function(n) {
    spectralnorm_matrix(n)
}
