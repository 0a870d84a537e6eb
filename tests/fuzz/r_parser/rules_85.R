int_mod <- function(a, b) a %% b

