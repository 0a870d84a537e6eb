nested <- function(cfg) {
  inner_total(cfg$a) + inner_total(cfg$b)
}

