na_store <- function(x) {
  x[2] <- NA
  x
}
