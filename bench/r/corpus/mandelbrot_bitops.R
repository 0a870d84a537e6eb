# Mandelbrot of the "Are We Fast Yet?" suite in its R port: while loops with double
# counters, globals for the iteration limit, bitwShiftL()/bitwXor() to fold each row of
# bits into a running checksum.
# corpus-call: execute(64L)

lim <- 2
max_iter <- 50

mandelbrot <- function(size) {
    sum <- 0
    acc <- 0
    nbits <- 0
    y <- 0
    while (y < size) {
        ci <- (2.0 * y / size) - 1.0
        x <- 0
        while (x < size) {
            zr <- 0.0
            zrzr <- 0.0
            zi <- 0.0
            zizi <- 0.0
            cr <- (2.0 * x / size) - 1.5
            z <- 0
            going <- TRUE
            escape <- 0
            while (going && z < max_iter) {
                zr <- zrzr - zizi + cr
                zi <- 2.0 * zr * zi + ci
                zrzr <- zr * zr
                zizi <- zi * zi
                if (zrzr + zizi > lim * lim) {
                    going <- FALSE
                    escape <- 1
                }
                z <- z + 1
            }
            acc <- bitwShiftL(acc, 1) + escape
            nbits <- nbits + 1
            if (nbits == 8) {
                sum <- bitwXor(sum, acc)
                acc <- 0
                nbits <- 0
            } else if (x == size - 1) {
                acc <- bitwShiftL(acc, 8 - nbits)
                sum <- bitwXor(sum, acc)
                acc <- 0
                nbits <- 0
            }
            x <- x + 1
        }
        y <- y + 1
    }
    sum
}

execute <- function(n = 500L) {
    mandelbrot(n)
}
