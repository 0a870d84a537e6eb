# Bounce from the "Are We Fast Yet?" suite in the ReactorLabs R port: a seeded linear
# congruential generator as closures over `seed` updated with <<- and bitwAnd(), balls
# as a list of 4-vectors moved by lapply() with a closure that counts bounces with <<-,
# bounce() returning list(ball, bounced).
# corpus-call: execute(50L)

execute <- function(steps = 50L) {
    seed <- NaN
    reset_seed <- function() seed <<- 74755
    next_random <- function() {
        seed <<- bitwAnd((seed * 1309) + 13849, 65535)
        seed
    }

    ball_count <- 100
    bounces <- 0
    balls <- vector("list", length = ball_count)
    reset_seed()
    for (i in 1:ball_count) {
        r1 <- next_random()
        r2 <- next_random()
        r3 <- next_random()
        r4 <- next_random()
        balls[[i]] <- c(r1 %% 500, r2 %% 500, (r3 %% 300) - 150, (r4 %% 300) - 150)
    }

    move <- function(ball) {
        res <- bounce(ball)
        if (res[[2]]) bounces <<- bounces + 1
        res[[1]]
    }
    for (i in 1:steps) balls <- lapply(balls, move)
    bounces
}

bounce <- function(ball) {
    x_limit <- 500
    y_limit <- 500
    bounced <- FALSE
    ball[1] <- ball[1] + ball[3]
    ball[2] <- ball[2] + ball[4]
    if (ball[1] > x_limit) {
        ball[1] <- x_limit
        ball[3] <- 0 - abs(ball[3])
        bounced <- TRUE
    }
    if (ball[1] < 0) {
        ball[1] <- 0
        ball[3] <- abs(ball[3])
        bounced <- TRUE
    }
    if (ball[2] > y_limit) {
        ball[2] <- y_limit
        ball[4] <- 0 - abs(ball[4])
        bounced <- TRUE
    }
    if (ball[2] < 0) {
        ball[2] <- 0
        ball[4] <- abs(ball[4])
        bounced <- TRUE
    }
    list(ball, bounced)
}
