# Lists, data frames and globals in compiled R: core/tests/frontend_r_lists.rs runs each
# function here in R (Rscript) and compiled on every backend, and compares. Plain R.

# The `setup(args)` / `run(data)` convention of R benchmark suites.
setup <- function(n) {
  list(x = as.double(seq_len(n)), w = 0.5, m = matrix(as.double(1:6), 2), n = as.integer(n))
}

run <- function(data) {
  s <- 0
  for (i in seq_len(data$n)) {
    s <- s + data$x[i] * data$w
  }
  s + sum(data[["m"]]) + data$m[2, 3] + length(data)
}

# Positions, names, nesting.
pick <- function(data) {
  a <- data[[1]]
  b <- data[["b"]]
  c(sum(a), b, data$inner$k * 2, data[[3]][[1]], length(data$inner))
}

# A data frame as a list of columns; its character column is never read.
frame_stats <- function(df) {
  s <- 0
  for (i in seq_len(nrow(df))) {
    if (df$keep[i]) s <- s + df$x[i] * df$n[i]
  }
  c(s, nrow(df), ncol(df), NROW(df), NCOL(df), length(df))
}

# Local lists: built, element read, element written, passed on, returned parts.
local_list <- function(x) {
  l <- list(a = x, b = 2, c = 3L)
  l$a[1] <- 10
  l$b <- l$b + 1
  l[["c"]] <- l[["c"]] * 2L
  helper_sum(l) + l$b + l$c
}

helper_sum <- function(q) sum(q$a) * q$b

# A list element takes a wider type where one is stored (R's coercion).
widen_elem <- function(k) {
  l <- list(v = 1L)
  if (k > 1) l$v <- 2.5
  l$v * 2
}

# Whole-list assignment reads every value before storing: this swaps.
swap <- function(x, y) {
  l <- list(a = x, b = y)
  l <- list(a = l$b, b = l$a)
  c(l$a, l$b)
}

# A list argument written inside the callee is the callee's copy (R passes values).
modify_list <- function(d) {
  d$x[1] <- 100
  sum(d$x)
}

keeps_list <- function(data) {
  y <- modify_list(data)
  y + sum(data$x)
}

# Nested lists as arguments of helpers, lists of lists.
nested <- function(cfg) {
  inner_total(cfg$a) + inner_total(cfg$b)
}

inner_total <- function(p) sum(p$v) * p$scale

# Globals: free variables read from the environment where the function lives, as they
# are at the call.
scale_by_k <- function(x) x * K

use_globals <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i] * V[i]
  s + sum(M) + G$a + callee_reads()
}

callee_reads <- function() K * 2

int_global <- function(n) n + KI

# A computed position among elements of one kind (R errors beyond the end).
sum_elements <- function(d) {
  s <- 0
  for (k in seq_along(d)) s <- s + sum(d[[k]])
  s
}

element_at <- function(d, k) d[[k]] * 2

# List results: named, nested and unnamed; a helper's list read back.
stats_list <- function(x) {
  s <- sum(x)
  list(total = s, scaled = x * 2, n = length(x), nested = list(a = 1L, b = x[1]))
}

from_helper <- function(x) {
  r <- stats_list(x)
  r$total + r$nested$b + r[["n"]]
}

branches <- function(x) {
  if (x > 0) return(list(a = x, b = 1L))
  list(a = -x, b = 2L)
}

unnamed <- function(x) list(x, x + 1)

result_var <- function(x) {
  res <- list(mean = 0, sd = 0)
  res$mean <- mean(x)
  res$sd <- sqrt(sum((x - res$mean)^2) / (length(x) - 1))
  res
}

# The `setup` of a benchmark returns the data its `run` reads.
setup_then_run <- function(n) run(setup(n))

# An element assigned at a computed position (R grows the list past its end; compiled
# code raises, kind unsupported, and R runs it).
set_at <- function(k, v) {
  l <- list(a = c(1, 2), b = c(3, 4), c = c(5, 6))
  l[[k]] <- v
  c(l$a, l$b, l$c, length(l))
}

# A loop over a list's elements.
loop_over <- function(d) {
  s <- 0
  last <- 0
  for (v in d) {
    s <- s + sum(v)
    last <- v[1]
  }
  c(s, last)
}

# Records: a list of lists of one shape (the N-body benchmark's bodies), looped over by
# name, by element, and read and written at a computed position.
records_by_name <- function(bodies) {
  nb <- length(bodies)
  pos <- matrix(0, nb, 2)
  mass <- numeric(nb)
  k <- 0
  for (nm in names(bodies)) {
    b <- bodies[[nm]]
    k <- k + 1
    pos[k, ] <- c(b$x, b$y)
    mass[k] <- bodies[[nm]]$mass
  }
  c(pos[, 1], pos[, 2], mass)
}

records_by_element <- function(bodies, limit) {
  s <- 0
  n <- 0L
  for (b in bodies) {
    n <- n + 1L
    if (b$mass < 0) next
    s <- s + b$x * b$mass
    if (s > limit) break
  }
  c(s, n)
}

records_at <- function(bodies, steps) {
  n <- length(bodies)
  for (s in seq_len(steps)) {
    for (i in seq_len(n)) {
      bodies[[i]]$x <- bodies[[i]]$x + bodies[[i]][["vx"]] * 0.5
    }
  }
  total <- 0
  for (i in seq_along(bodies)) total <- total + bodies[[i]]$x * bodies[[i]]$mass
  c(total, bodies$b$x, bodies[["c"]]$x)
}

record_field_at <- function(bodies, k) bodies[[k]]$mass * 2

# A loop over the names of a list whose elements differ in kind; a data frame's columns
# by name.
names_mixed <- function(d) {
  s <- 0
  for (nm in names(d)) s <- s + sum(d[[nm]]) * length(d[[nm]])
  s
}

frame_columns <- function(df) {
  total <- 0
  for (col in names(df)) {
    for (i in seq_len(nrow(df))) total <- total + df[[col]][i] * i
  }
  total
}

# A function defined inside reads a list of the enclosing function.
closure_reads_list <- function(data) {
  g <- function(i) data$x[i] * data$w
  s <- 0
  for (i in seq_along(data$x)) s <- s + g(i)
  s + sum(sapply(seq_along(data$x), function(i) data$x[i] + data$w))
}

# stopifnot on a list's element (R's message deparses `data$n`).
checked <- function(data) {
  stopifnot(data$n > 0)
  data$n * 2
}

# Cells of a data frame: one column by a constant name or position, rows any selection.
frame_cells <- function(df) {
  s <- 0
  for (i in seq_len(nrow(df))) s <- s + df[i, "x"] * df[i, 2]
  c(s, sum(df[, "x"]), df[2:3, "n"], df[-1, 1])
}

# A loop over a list made in place.
loop_literal <- function(x, y) {
  s <- 0
  for (v in list(x, y * 2, x + 1L)) s <- s + sum(v)
  for (p in list(a = list(w = 1, z = x), b = list(w = 2L, z = y))) s <- s + p$w * sum(p$z)
  for (v in list(x, x)) x <- x + v
  c(s, x)
}
