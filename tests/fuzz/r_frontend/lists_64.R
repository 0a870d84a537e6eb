names_mixed <- function(d) {
  s <- 0
  for (nm in names(d)) s <- s + sum(d[[nm]]) * length(d[[nm]])
  s
}

