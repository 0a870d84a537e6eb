# Fannkuch-redux (Benchmarks Game) as the rbenchmark port writes it: 0-based
# permutations in an R vector, prefix reversal by slice assignment, the checksum
# print()ed, the maximum flip count returned from inside the loop.
# corpus-call: run(setup("7"))

setup <- function(args = "10") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 10L
    n
}

run <- function(n) {
    max_flips <- 0
    sign <- TRUE
    checksum <- 0
    perm1 <- 0:(n - 1)
    count <- perm1
    rx <- 3:(n - 1)

    while (TRUE) {
        k <- perm1[1]
        if (k != 0) {
            perm <- perm1
            flips <- 1
            kk <- perm[k + 1]
            while (kk != 0) {
                perm[1:(k + 1)] <- perm[(k + 1):1]
                flips <- flips + 1
                k <- kk
                kk <- perm[kk + 1]
            }
            if (max_flips < flips) max_flips <- flips
            checksum <- checksum + (if (sign) flips else -flips)
        }

        # next permutation, incrementally
        if (sign) {
            t <- perm1[2]
            perm1[2] <- perm1[1]
            perm1[1] <- t
            sign <- FALSE
        } else {
            t <- perm1[3]
            perm1[3] <- perm1[2]
            perm1[2] <- t
            sign <- TRUE
            done_early <- FALSE
            for (r in rx) {
                if (count[r] != 0) {
                    done_early <- TRUE
                    break
                }
                count[r] <- r - 1
                p0 <- perm1[1]
                perm1[1:r] <- perm1[2:(r + 1)]
                perm1[r + 1] <- p0
            }
            if (!done_early) {
                r <- n
                if (count[r] == 0) {
                    print(checksum)
                    return(max_flips)
                }
            }
            count[r] <- count[r] - 1
        }
    }
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    cat("Pfannkuchen(", n, ") = ", run(n), "\n", sep = "")
}
