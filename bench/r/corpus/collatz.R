# Longest Collatz chain below a bound (Project Euler 14) as R learners write it (after
# michael-simko/MS_R_projects collatz.R): small top-level helpers even(), odd() and
# coll(), a while loop counting steps, sapply() over the starting values, which.max().
# corpus-call: longest_chain(1500)

even <- function(n) n / 2
odd <- function(n) 3 * n + 1
coll <- function(x) if (x %% 2 == 0) even(x) else odd(x)

chain_length <- function(z) {
    steps <- 0
    while (z != 1) {
        z <- coll(z)
        steps <- steps + 1
    }
    steps
}

longest_chain <- function(limit) {
    lens <- sapply(1:limit, chain_length)
    c(start = which.max(lens), steps = max(lens))
}
