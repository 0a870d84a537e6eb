# R Benchmark 2.5, "Fibonacci numbers calculation (vector calc)": random integers
# from runif(), Binet's formula applied to the whole vector, repeated `runs` times after
# a cat() of the test's title.
# corpus-call: run(3, 200000)

run <- function(runs = 3, n = 3500000) {
    cat("Fibonacci numbers calculation (vector calc)\n")
    phi <- 1.6180339887498949
    for (i in 1:runs) {
        a <- floor(runif(n) * 1000)
        b <- (phi^a - (-phi)^(-a)) / sqrt(5)
    }
    b
}
