fact_recall <- function(n) if (n <= 1) 1 else n * Recall(n - 1)

# Recall in an anonymous function given to sapply.
