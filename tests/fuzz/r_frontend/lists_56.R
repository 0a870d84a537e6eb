records_by_name <- function(bodies) {
  nb <- length(bodies)
  pos <- matrix(0, nb, 2)
  mass <- numeric(nb)
  k <- 0
  for (nm in names(bodies)) {
    b <- bodies[[nm]]
    k <- k + 1
    pos[k, ] <- c(b$x, b$y)
    mass[k] <- bodies[[nm]]$mass
  }
  c(pos[, 1], pos[, 2], mass)
}

