# The rbenchmark "scalar" prime count: trial division of every i up to n by a while
# loop with a logical flag, the count print()ed.
# corpus-call: run(setup("15000"))

setup <- function(args = "100000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 100000L
    n
}

run <- function(n = 100000) {
    if (n < 2) { n <- 2 }
    num_primes <- 0
    for (i in 2:n) {
        limit <- sqrt(i)
        prime <- TRUE
        j <- 2
        while (prime && j <= limit) {
            if ((i %% j) == 0) { prime <- FALSE }
            j <- j + 1
        }
        if (prime) {
            num_primes <- num_primes + 1
        }
    }
    print(num_primes)
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    run(n)
}
