# Monte-Carlo estimate of pi with one runif() call per coordinate and `=` for
# assignment, as in the OSG Connect R tutorial (OSGConnect/tutorial-ScalingUp-R mcpi.R).
# corpus-call: montecarloPi(20000)

montecarloPi <- function(trials) {
    hits = 0
    for (i in 1:trials) {
        x = runif(1, 0, 1)
        y = runif(1, 0, 1)
        if (x^2 + y^2 < 1) hits = hits + 1
    }
    return((hits * 4) / trials)
}
