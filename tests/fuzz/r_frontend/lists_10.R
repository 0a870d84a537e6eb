frame_stats <- function(df) {
  s <- 0
  for (i in seq_len(nrow(df))) {
    if (df$keep[i]) s <- s + df$x[i] * df$n[i]
  }
  c(s, nrow(df), ncol(df), NROW(df), NCOL(df), length(df))
}

# Local lists: built, element read, element written, passed on, returned parts.
