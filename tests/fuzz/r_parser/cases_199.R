na_compare <- function(x) x > NA

# seq() with length.out.
