sap_local <- function(x) {
  sq <- function(v) v * v
  c(sapply(x, sq), sapply(x, "sq"))
}
