first_of <- function(args) {
  n <- args[1]
  n * 2
}

