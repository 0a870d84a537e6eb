# Ray-traced shadows on a height map, after the ReactorLabs "RealThing" volcano
# benchmark: angles from sapply(seq(...), tan), a break out of the march when the ray
# leaves the map, all(c(...) < h) to skip cells, bilinear interpolation in a top-level
# helper. The map is a subsample of R's `volcano` data set, so that R runs it quickly.
# corpus-call: execute(1L)

bench_rays <- function(height.map = volcano, sun.angle = 45) {
    shadow <- matrix(1, ncol = ncol(height.map), nrow = nrow(height.map))
    sunangle <- sun.angle / 180 * pi
    angle <- -90 / 180 * pi
    diffangle <- 90 / 180 * pi
    numberangles <- 10
    anglebreaks <- sapply(seq(angle, diffangle, length.out = numberangles), tan)
    maxdistance <- floor(sqrt(ncol(height.map)^2 + nrow(height.map)^2))
    sinsun <- sin(sunangle)
    cossun <- cos(sunangle)

    for (i in 1:nrow(height.map)) {
        for (j in 1:ncol(height.map)) {
            for (anglei in anglebreaks) {
                for (k in 1:maxdistance) {
                    xcoord <- i + sinsun * k
                    ycoord <- j + cossun * k
                    if (xcoord > nrow(height.map) || ycoord > ncol(height.map) ||
                        xcoord < 0 || ycoord < 0) break
                    tanangheight <- height.map[i, j] + anglei * k
                    if (all(c(height.map[ceiling(xcoord), ceiling(ycoord)],
                              height.map[floor(xcoord), ceiling(ycoord)],
                              height.map[ceiling(xcoord), floor(ycoord)],
                              height.map[floor(xcoord), floor(ycoord)]) < tanangheight)) next
                    if (tanangheight < bilinear(height.map, xcoord, ycoord)) {
                        shadow[i, j] <- shadow[i, j] - 1 / length(anglebreaks)
                        break
                    }
                }
            }
        }
    }
    shadow
}

bilinear <- function(data, x0, y0) {
    i <- max(1, floor(x0))
    j <- max(1, floor(y0))
    XT <- (x0 - i)
    YT <- (y0 - j)
    result <- (1 - YT) * (1 - XT) * data[i, j]
    nx <- nrow(data)
    ny <- ncol(data)
    if (i + 1 <= nx) result <- result + (1 - YT) * XT * data[i + 1, j]
    if (j + 1 <= ny) result <- result + YT * (1 - XT) * data[i, j + 1]
    if (i + 1 <= nx && j + 1 <= ny) result <- result + YT * XT * data[i + 1, j + 1]
    result
}

execute <- function(n) {
    map <- volcano[seq(1, nrow(volcano), by = 4), seq(1, ncol(volcano), by = 4)]
    s <- 0
    for (j in 1:n) {
        s <- s + sum(bench_rays(height.map = map, sun.angle = 181))
    }
    print(s)
    s
}
