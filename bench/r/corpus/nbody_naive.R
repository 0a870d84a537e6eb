# N-body in the "naive" style of the FastR/ReactorLabs shootout ports: the system lives
# in global vectors, advance() updates them with <<-, energy() uses outer() and
# upper.tri(), and the driver prints with cat() after options(digits = 9).
# corpus-call: execute(300L)

solar_mass <- 4 * pi * pi
days_per_year <- 365.24
n_bodies <- 5

px <- c(0, 4.84143144246472090e+00, 8.34336671824457987e+00, 1.28943695621391310e+01,
        1.53796971148509165e+01)
py <- c(0, -1.16032004402742839e+00, 4.12479856412430479e+00, -1.51111514016986312e+01,
        -2.59193146099879641e+01)
pz <- c(0, -1.03622044471123109e-01, -4.03523417114321381e-01, -2.23307578892655734e-01,
        1.79258772950371181e-01)
vx <- c(0, 1.66007664274403694e-03, -2.76742510726862411e-03, 2.96460137564761618e-03,
        2.68067772490389322e-03) * days_per_year
vy <- c(0, 7.69901118419740425e-03, 4.99852801234917238e-03, 2.37847173959480950e-03,
        1.62824170038242295e-03) * days_per_year
vz <- c(0, -6.90460016972063023e-05, 2.30417297573763929e-05, -2.96589568540237556e-05,
        -9.51592254519715870e-05) * days_per_year
mass <- c(1, 9.54791938424326609e-04, 2.85885980666130812e-04, 4.36624404335156298e-05,
          5.15138902046611451e-05) * solar_mass

offset_momentum <- function() {
    vx[[1]] <<- -sum(vx * mass) / solar_mass
    vy[[1]] <<- -sum(vy * mass) / solar_mass
    vz[[1]] <<- -sum(vz * mass) / solar_mass
}

advance <- function(dt) {
    for (i in 1:(n_bodies - 1)) {
        for (j in (i + 1):n_bodies) {
            dx <- px[[i]] - px[[j]]
            dy <- py[[i]] - py[[j]]
            dz <- pz[[i]] - pz[[j]]
            d <- sqrt(dx * dx + dy * dy + dz * dz)
            mag <- dt / (d * d * d)
            vx[[i]] <<- vx[[i]] - dx * mass[[j]] * mag
            vy[[i]] <<- vy[[i]] - dy * mass[[j]] * mag
            vz[[i]] <<- vz[[i]] - dz * mass[[j]] * mag
            vx[[j]] <<- vx[[j]] + dx * mass[[i]] * mag
            vy[[j]] <<- vy[[j]] + dy * mass[[i]] * mag
            vz[[j]] <<- vz[[j]] + dz * mass[[i]] * mag
        }
    }
    for (i in 1:n_bodies) {
        px[[i]] <<- px[[i]] + dt * vx[[i]]
        py[[i]] <<- py[[i]] + dt * vy[[i]]
        pz[[i]] <<- pz[[i]] + dt * vz[[i]]
    }
}

energy <- function() {
    dx <- outer(px, px, "-")
    dy <- outer(py, py, "-")
    dz <- outer(pz, pz, "-")
    d <- sqrt(dx * dx + dy * dy + dz * dz)
    q <- (mass %o% mass) / d
    sum(0.5 * mass * (vx * vx + vy * vy + vz * vz)) - sum(q[upper.tri(q)])
}

nbody_naive <- function(args) {
    n <- if (length(args)) as.integer(args[[1]]) else 1000L
    options(digits = 9)
    offset_momentum()
    cat(energy(), "\n")
    for (i in 1:n) advance(0.01)
    e <- energy()
    cat(e, "\n")
    e
}

execute <- function(n) {
    nbody_naive(n)
}
