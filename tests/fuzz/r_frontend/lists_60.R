records_at <- function(bodies, steps) {
  n <- length(bodies)
  for (s in seq_len(steps)) {
    for (i in seq_len(n)) {
      bodies[[i]]$x <- bodies[[i]]$x + bodies[[i]][["vx"]] * 0.5
    }
  }
  total <- 0
  for (i in seq_along(bodies)) total <- total + bodies[[i]]$x * bodies[[i]]$mass
  c(total, bodies$b$x, bodies[["c"]]$x)
}

