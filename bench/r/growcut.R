# growcut (bench/kernels/growcut.vrir, bench/c/growcut.c) in R: one step of the GrowCut
# cellular automaton. image is h x w x 3, state h x w x 2 (label, strength); returns the
# next state (the C reference also counts changes, which R users rarely need).
growcut <- function(image, state, radius) {
  h <- dim(image)[1]
  w <- dim(image)[2]
  state_next <- array(0, c(h, w, 2))
  sqrt_3 <- sqrt(3)
  for (j in seq_len(w)) {
    for (i in seq_len(h)) {
      winning <- state[i, j, 1]
      defense <- state[i, j, 2]
      for (jj in max(j - radius, 1L):min(j + radius, w)) {
        for (ii in max(i - radius, 1L):min(i + radius, h)) {
          if (ii == i && jj == j) next
          s <- 0
          for (k in 1:3) {
            d <- image[i, j, k] - image[ii, jj, k]
            s <- s + d * d
          }
          gval <- 1 - sqrt(s) / sqrt_3
          attack <- gval * state[ii, jj, 2]
          if (attack > defense) {
            defense <- attack
            winning <- state[ii, jj, 1]
          }
        }
      }
      state_next[i, j, 1] <- winning
      state_next[i, j, 2] <- defense
    }
  }
  state_next
}

growcut_par <- function(image, state, radius) {
  h <- dim(image)[1]
  w <- dim(image)[2]
  state_next <- array(0, c(h, w, 2))
  sqrt_3 <- sqrt(3)
  for (j in prange(w)) {
    for (i in seq_len(h)) {
      winning <- state[i, j, 1]
      defense <- state[i, j, 2]
      for (jj in max(j - radius, 1L):min(j + radius, w)) {
        for (ii in max(i - radius, 1L):min(i + radius, h)) {
          if (ii == i && jj == j) next
          s <- 0
          for (k in 1:3) {
            d <- image[i, j, k] - image[ii, jj, k]
            s <- s + d * d
          }
          gval <- 1 - sqrt(s) / sqrt_3
          attack <- gval * state[ii, jj, 2]
          if (attack > defense) {
            defense <- attack
            winning <- state[ii, jj, 1]
          }
        }
      }
      state_next[i, j, 1] <- winning
      state_next[i, j, 2] <- defense
    }
  }
  state_next
}
