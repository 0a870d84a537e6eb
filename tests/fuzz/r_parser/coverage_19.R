fact_table <- function(m) sapply(1:m, function(n) if (n <= 1) 1 else n * Recall(n - 1))

# Recall with named arguments and a default.
