# arc_distance (bench/kernels/arc_distance.vrir, bench/c/arc_distance.c) as an R user
# writes it: great-circle distance of point pairs, one loop over the vectors.
arc_distance <- function(theta_1, phi_1, theta_2, phi_2) {
  n <- length(theta_1)
  out <- numeric(n)
  for (i in seq_len(n)) {
    st <- sin((theta_2[i] - theta_1[i]) / 2)
    sp <- sin((phi_2[i] - phi_1[i]) / 2)
    temp <- st * st + (cos(theta_1[i]) * cos(theta_2[i])) * (sp * sp)
    out[i] <- 2 * atan2(sqrt(temp), sqrt(1 - temp))
  }
  out
}

arc_distance_par <- function(theta_1, phi_1, theta_2, phi_2) {
  n <- length(theta_1)
  out <- numeric(n)
  for (i in prange(n)) {
    st <- sin((theta_2[i] - theta_1[i]) / 2)
    sp <- sin((phi_2[i] - phi_1[i]) / 2)
    temp <- st * st + (cos(theta_1[i]) * cos(theta_2[i])) * (sp * sp)
    out[i] <- 2 * atan2(sqrt(temp), sqrt(1 - temp))
  }
  out
}

# The same in R's vector style (issue 18, bench/r/array_style.R): whole-vector operations, no loop.
arc_distance_vec <- function(theta_1, phi_1, theta_2, phi_2) {
  st <- sin((theta_2 - theta_1) / 2)
  sp <- sin((phi_2 - phi_1) / 2)
  temp <- st * st + (cos(theta_1) * cos(theta_2)) * (sp * sp)
  2 * atan2(sqrt(temp), sqrt(1 - temp))
}
