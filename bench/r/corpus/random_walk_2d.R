# Ross Ihaka's 2-d random walk, scalar version, as collected in rbenchmark's misc/:
# a chained `xpos = ypos = numeric(n)`, runif(1) drawn twice per step to choose the
# direction and the sign, the walk returned as list(x = , y = ).
# corpus-call: run(setup("20000"))

setup <- function(args = "100000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 100000L
    n
}

run = function(n = 100000) {
    xpos = ypos = numeric(n)
    for (i in 2:n) {
        # horizontal or vertical, then which way
        delta = if (runif(1) > .5) 1 else -1
        if (runif(1) > .5) {
            xpos[i] = xpos[i - 1] + delta
            ypos[i] = ypos[i - 1]
        } else {
            xpos[i] = xpos[i - 1]
            ypos[i] = ypos[i - 1] + delta
        }
    }
    list(x = xpos, y = ypos)
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    run(n)
}
