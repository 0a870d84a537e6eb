helper_sum <- function(q) sum(q$a) * q$b

# A list element takes a wider type where one is stored (R's coercion).
