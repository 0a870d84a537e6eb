# k-means in the shape of the Riposte benchmark (rbenchmark's riposte/kmeans.R): setup()
# returns list(points, means, reps) with the means as a list of 2-vectors; run(dataset)
# unpacks it with [[ ]], an assignment helper defined inside run() loops over the means
# with ifelse() and pmin(), the update loops over clusters with logical indexing, and the
# means are cat()ed at the end.
# corpus-call: run(setup(c("5000", "8")))

setup <- function(args = c("1000000", "10")) {
    N <- as.integer(args[1])
    if (is.na(N)) N <- 1000000L
    reps <- as.integer(args[2])
    if (is.na(reps)) reps <- 10L
    cat("[kmeans]N =", N, "reps =", reps, "\n")
    centre <- rep(c(0, 3, 6, 9, 12), length.out = N)
    a <- c(centre + rnorm(N, sd = 0.5), centre / 2 + rnorm(N, sd = 0.5))
    dim(a) <- c(N, 2)
    means <- list(a[1, ], a[2, ], a[3, ], a[4, ], a[5, ])
    list(a, means, reps)
}

run <- function(dataset) {
    a <- dataset[[1]]
    means <- dataset[[2]]
    reps <- dataset[[3]]
    K <- 5L

    assignment <- function(data, means) {
        min.value <- Inf
        min.index <- 0L
        for (k in 1L:length(means)) {
            d2 <- 0
            for (j in 1L:ncol(data)) {
                d2 <- d2 + (data[, j] - means[[k]][j])^2
            }
            min.index <- ifelse(d2 < min.value, k, min.index)
            min.value <- pmin(d2, min.value)
        }
        min.index
    }

    for (r in 1L:reps) {
        idx <- assignment(a, means)
        for (k in 1L:K) {
            members <- idx == k
            if (any(members)) {
                means[[k]] <- c(mean(a[members, 1]), mean(a[members, 2]))
            }
        }
    }
    for (k in 1L:K) cat(means[[k]], "\n")
    means
}

if (!exists("harness_argc")) {
    dataset <- setup(commandArgs(TRUE))
    run(dataset)
}
