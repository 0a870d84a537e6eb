# The random part of Fasta (Benchmarks Game) in the shape of the rbenchmark port (itself
# from the Fortran one): constants inside run(), the linear congruential generator as a
# helper returning list(random = , result = ), a cumulative-probability lookup table,
# frequency tables as lists of lists. Numeric only: it counts the symbols it draws
# instead of printing them, and cat()s the titles.
# corpus-call: run(setup("2000"))

setup <- function(args = "1000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 1000L
    n
}

run <- function(n = 1000) {
    IM <- 139968
    IA <- 3877
    IC <- 29573
    LOOKUP_SIZE <- 4096
    LOOKUP_SCALE <- as.double(LOOKUP_SIZE - 1)

    iub <- list(
        list(prob = 0.27, cprob = 0.0), list(prob = 0.12, cprob = 0.0),
        list(prob = 0.12, cprob = 0.0), list(prob = 0.27, cprob = 0.0),
        list(prob = 0.02, cprob = 0.0), list(prob = 0.02, cprob = 0.0),
        list(prob = 0.02, cprob = 0.0), list(prob = 0.02, cprob = 0.0),
        list(prob = 0.02, cprob = 0.0), list(prob = 0.02, cprob = 0.0),
        list(prob = 0.02, cprob = 0.0), list(prob = 0.02, cprob = 0.0),
        list(prob = 0.02, cprob = 0.0), list(prob = 0.02, cprob = 0.0),
        list(prob = 0.02, cprob = 0.0))
    homo_sapiens <- list(
        list(prob = 0.3029549426680, cprob = 0.0), list(prob = 0.1979883004921, cprob = 0.0),
        list(prob = 0.1975473066391, cprob = 0.0), list(prob = 0.3015094502008, cprob = 0.0))

    random_next_lookup <- function(random) {
        random <- (random * IA + IC) %% IM
        list(random = random, result = random * (LOOKUP_SCALE / IM))
    }

    fill_lookup <- function(table) {
        p <- 0.0
        for (i in 1:length(table)) {
            p <- p + table[[i]]$prob
            table[[i]]$cprob <- p * LOOKUP_SCALE
        }
        table[[length(table)]]$cprob <- LOOKUP_SIZE - 1.0
        lookup <- numeric(LOOKUP_SIZE)
        j <- 1
        for (i in 1:LOOKUP_SIZE) {
            while (table[[j]]$cprob < i - 1) j <- j + 1
            lookup[i] <- j
        }
        list(lookup = lookup, table = table)
    }

    randomize <- function(table, title, n, rand) {
        t <- fill_lookup(table)
        lookup <- t$lookup
        table <- t$table
        cat(title, "\n")
        counts <- numeric(length(table))
        for (i in 1:n) {
            nxt <- random_next_lookup(rand)
            rand <- nxt$random
            r <- nxt$result
            u <- lookup[floor(r) + 1]
            while (table[[u]]$cprob < r) u <- u + 1
            counts[u] <- counts[u] + 1
        }
        list(counts = counts, rand = rand)
    }

    rand <- 42
    a <- randomize(iub, ">TWO IUB ambiguity codes", n * 3, rand)
    b <- randomize(homo_sapiens, ">THREE Homo sapiens frequency", n * 5, a$rand)
    c(a$counts, b$counts)
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    print(run(n))
}
