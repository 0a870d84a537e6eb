set_at <- function(k, v) {
  l <- list(a = c(1, 2), b = c(3, 4), c = c(5, 6))
  l[[k]] <- v
  c(l$a, l$b, l$c, length(l))
}

# A loop over a list's elements.
