# N-body (Benchmarks Game) as the rbenchmark port writes it: the bodies as a named list
# of lists built inside run(), copied into position/velocity matrices, the pair forces
# vectorised over (i+1):nb, and the energy printed with cat().
# corpus-call: run(setup("1000"))

setup <- function(args = "1000") {
    n <- as.integer(args[1])
    if (is.na(n)) n <- 1000L
    n
}

run <- function(steps) {
    PI <- 3.141592653589793
    SOLAR_MASS <- 4 * PI * PI
    DAYS <- 365.24
    dt <- 0.01

    bodies <- list(
        sun = list(x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0, mass = SOLAR_MASS),
        jupiter = list(x = 4.84143144246472090e+00, y = -1.16032004402742839e+00,
                       z = -1.03622044471123109e-01, vx = 1.66007664274403694e-03 * DAYS,
                       vy = 7.69901118419740425e-03 * DAYS, vz = -6.90460016972063023e-05 * DAYS,
                       mass = 9.54791938424326609e-04 * SOLAR_MASS),
        saturn = list(x = 8.34336671824457987e+00, y = 4.12479856412430479e+00,
                      z = -4.03523417114321381e-01, vx = -2.76742510726862411e-03 * DAYS,
                      vy = 4.99852801234917238e-03 * DAYS, vz = 2.30417297573763929e-05 * DAYS,
                      mass = 2.85885980666130812e-04 * SOLAR_MASS),
        uranus = list(x = 1.28943695621391310e+01, y = -1.51111514016986312e+01,
                      z = -2.23307578892655734e-01, vx = 2.96460137564761618e-03 * DAYS,
                      vy = 2.37847173959480950e-03 * DAYS, vz = -2.96589568540237556e-05 * DAYS,
                      mass = 4.36624404335156298e-05 * SOLAR_MASS),
        neptune = list(x = 1.53796971148509165e+01, y = -2.59193146099879641e+01,
                       z = 1.79258772950371181e-01, vx = 2.68067772490389322e-03 * DAYS,
                       vy = 1.62824170038242295e-03 * DAYS, vz = -9.51592254519715870e-05 * DAYS,
                       mass = 5.15138902046611451e-05 * SOLAR_MASS))
    nb <- length(bodies)

    pos <- matrix(0, nb, 3)
    vel <- matrix(0, nb, 3)
    mass <- numeric(nb)
    k <- 0
    for (nm in names(bodies)) {
        b <- bodies[[nm]]
        k <- k + 1
        pos[k, ] <- c(b$x, b$y, b$z)
        vel[k, ] <- c(b$vx, b$vy, b$vz)
        mass[k] <- b$mass
    }

    energy <- function(pos, vel) {
        e <- 0.5 * sum(mass * (vel[, 1]^2 + vel[, 2]^2 + vel[, 3]^2))
        for (i in 1:(nb - 1)) {
            rest <- (i + 1):nb
            d2 <- (pos[i, 1] - pos[rest, 1])^2 + (pos[i, 2] - pos[rest, 2])^2 +
                (pos[i, 3] - pos[rest, 3])^2
            e <- e - mass[i] * sum(mass[rest] / sqrt(d2))
        }
        e
    }

    # offset the sun's momentum
    vel[1, ] <- -c(sum(vel[, 1] * mass), sum(vel[, 2] * mass), sum(vel[, 3] * mass)) / SOLAR_MASS

    cat(format(energy(pos, vel), nsmall = 9), "\n")
    for (s in 1:steps) {
        for (i in 1:(nb - 1)) {
            rest <- (i + 1):nb
            dx <- pos[i, 1] - pos[rest, 1]
            dy <- pos[i, 2] - pos[rest, 2]
            dz <- pos[i, 3] - pos[rest, 3]
            dist <- sqrt(dx^2 + dy^2 + dz^2)
            mag <- dt / dist^3
            vel[i, 1] <- vel[i, 1] - sum(dx * mass[rest] * mag)
            vel[i, 2] <- vel[i, 2] - sum(dy * mass[rest] * mag)
            vel[i, 3] <- vel[i, 3] - sum(dz * mass[rest] * mag)
            vel[rest, 1] <- vel[rest, 1] + dx * mass[i] * mag
            vel[rest, 2] <- vel[rest, 2] + dy * mass[i] * mag
            vel[rest, 3] <- vel[rest, 3] + dz * mass[i] * mag
        }
        pos <- pos + dt * vel
    }
    e <- energy(pos, vel)
    cat(format(e, nsmall = 9), "\n")
    e
}

if (!exists("harness_argc")) {
    n <- setup(commandArgs(TRUE))
    run(n)
}
