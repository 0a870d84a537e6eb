count_down <- function(n, acc = 0) if (n == 0) acc else Recall(acc = acc + n, n = n - 1)

# --- seq(from, to, by) of doubles, seq(n) ---

