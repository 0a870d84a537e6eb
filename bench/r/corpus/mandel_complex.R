# The Julia micro-benchmarks' R "userfunc_mandelbrot" (perf.R): complex arithmetic, a
# top-level helper abs2() using Re()/Im(), complex(real = , imag = ), for loops over
# seq() vectors of doubles, and a matrix filled through a running linear index.
# corpus-call: mandelperf()

abs2 <- function(z) {
    Re(z) * Re(z) + Im(z) * Im(z)
}

escape_time <- function(z) {
    c <- z
    maxiter <- 80
    for (n in 1:maxiter) {
        if (abs2(z) > 4) return(n - 1)
        z <- z^2 + c
    }
    maxiter
}

mandelperf <- function() {
    xs <- seq(-2, 0.5, .1)
    ys <- seq(-1, 1, .1)
    M <- matrix(0.0, nrow = length(xs), ncol = length(ys))
    k <- 1
    for (r in xs) {
        for (i in ys) {
            M[k] <- escape_time(complex(real = r, imag = i))
            k <- k + 1
        }
    }
    M
}
