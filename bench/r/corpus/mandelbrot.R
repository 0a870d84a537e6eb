# Mandelbrot (Benchmarks Game) as the rbenchmark port writes it: the PBM header
# print()ed and cat()ed, each pixel iterated with scalar doubles, eight pixels packed
# into a byte with integer arithmetic; here the bytes are summed instead of written.
# corpus-call: run(setup("64"))

setup <- function(args = "500") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 500L
    n
}

run <- function(size) {
    bits <- 0L
    byte <- 0L
    iter <- 50
    limit <- 2.0
    w <- h <- size
    checksum <- 0L

    print("P4")
    cat(w, h, "\n")

    for (y in 0:(h - 1)) {
        for (x in 0:(w - 1)) {
            zr <- zi <- tr <- ti <- 0.0
            cr <- 2.0 * x / w - 1.5
            ci <- 2.0 * y / h - 1.0
            for (i in 1:iter) {
                if (tr + ti > limit * limit) break
                zi <- 2.0 * zr * zi + ci
                zr <- tr - ti + cr
                tr <- zr * zr
                ti <- zi * zi
            }
            byte <- (byte * 2L) %% 256L
            if (tr + ti <= limit * limit) byte <- byte + 1L
            bits <- bits + 1L
            if (bits == 8L) {
                checksum <- checksum + byte
                byte <- 0L
                bits <- 0L
            } else if (x == w - 1) {
                byte <- (byte * as.integer(2L^(8 - w %% 8))) %% 256L
                checksum <- checksum + byte
                byte <- 0L
                bits <- 0L
            }
        }
    }
    checksum
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    cat("mandelbrot(", n, ") = ", run(n), "\n", sep = "")
}
