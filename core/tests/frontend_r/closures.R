# Closures, functionals and argument matching: each function runs in R and compiled
# (core/tests/frontend_r_closures.rs), results compared.

# ---- functions defined inside functions (lambda lifting) ----

inner_helper <- function(x) {
  sq <- function(v) v * v
  s <- 0
  for (i in seq_along(x)) s <- s + sq(x[i])
  s
}

capture_read <- function(x, k) {
  scale <- function(v) v * k
  scale(x) + 1
}

capture_loop_var <- function(n) {
  out <- numeric(n)
  for (i in 1:n) {
    at <- function(j) i * 10 + j
    out[i] <- at(1)
  }
  out
}

capture_late <- function(x) {
  shift <- function(v) v + offset
  offset <- 100
  shift(x)
}

capture_copy <- function(x) {
  bump <- function() {
    x[1] <- 100
    sum(x)
  }
  s <- bump()
  c(s, x[1])
}

capture_rebind <- function(a) {
  g <- function() {
    a <- a + 1
    a
  }
  c(g(), a)
}

recursive_inner <- function(n) {
  fib <- function(k) if (k < 2) k else fib(k - 1) + fib(k - 2)
  fib(n)
}

recursive_capture <- function(n, step) {
  down <- function(k) if (k <= 0) 0 else k + down(k - step)
  down(n)
}

nested_inner <- function(x, k) {
  outer_fn <- function(v) {
    inner_fn <- function(w) w + k
    inner_fn(v) * 2
  }
  outer_fn(x)
}

sibling_calls <- function(x, k) {
  a <- function(v) v + k
  b <- function(v) a(v) * 2
  b(x)
}

lambda_now <- function(x) (function(v) v * 2)(x)

two_types <- function(x, n) {
  h <- function(v) v * 2
  c(h(x), h(n))
}

inner_default <- function(x) {
  pow <- function(v, e = 2) v^e
  pow(x) + pow(x, 3)
}

spectral_norm <- function(n) {
  eval_A <- function(i, j) 1 / ((i + j) * (i + j + 1) / 2 + i + 1)
  times_u <- function(u) {
    v <- numeric(n)
    for (i in 1:n) v[i] <- sum(u * sapply(1:n, function(j) eval_A(i - 1, j - 1)))
    v
  }
  times_ut <- function(u) {
    v <- numeric(n)
    for (i in 1:n) v[i] <- sum(u * sapply(1:n, function(j) eval_A(j - 1, i - 1)))
    v
  }
  u <- rep(1, n)
  for (it in 1:10) {
    v <- times_ut(times_u(u))
    u <- times_ut(times_u(v))
  }
  sqrt(sum(u * v) / sum(v * v))
}

# ---- sapply ----

sap_lambda <- function(x) sapply(x, function(v) v^2 + 1)
sap_backslash <- function(x) sapply(x, \(v) v + 1)
sap_builtin <- function(x) sapply(x, sqrt)
sap_string <- function(x) sapply(x, "abs")
sap_extra <- function(x, p) sapply(x, function(v, e) v^e, p)
sap_named_extra <- function(x) sapply(x, function(v, lo, hi) min(max(v, lo), hi), hi = 2, lo = 0)
sap_first_named <- function(x) sapply(x, function(v, w) v - w, v = 10)
sap_seq <- function(n) sapply(1:n, function(i) i * i)
sap_matrix <- function(n) sapply(1:n, function(i) c(i, i^2, i^3))
sap_ragged <- function(n) sapply(1:n, function(i) seq_len(i))
sap_local <- function(x) {
  sq <- function(v) v * v
  c(sapply(x, sq), sapply(x, "sq"))
}
sap_nested <- function(x) sapply(x, function(v) sum(sapply(x, function(w) v * w)))
sap_top <- function(x) sapply(x, top_square)
top_square <- function(v) v * v
sap_logical <- function(x) sapply(x, function(v) v > 1)
sap_matrix_input <- function(m) sapply(m, function(v) v * 2)
sap_use_names <- function(x) sapply(x, function(v) v + 1, USE.NAMES = FALSE)

# ---- vapply ----

vap <- function(x) vapply(x, function(v) v * 2, numeric(1))
vap_int <- function(x) vapply(x, function(v) v + 1L, integer(1))
vap_promote <- function(x) vapply(x, function(v) v + 1L, numeric(1))
vap_vec <- function(x) vapply(x, function(v) c(v, -v), numeric(2))
vap_bad_len <- function(x) vapply(x, function(v) c(v, v), numeric(1))
vap_scalar_template <- function(x) vapply(x, function(v) v > 0, TRUE)
vap_partial <- function(x) vapply(x, function(v) v * 3, FUN.V = 0)

# ---- mapply, Map, lapply ----

map_two <- function(x, y) mapply(function(a, b) a * b + 1, x, y)
map_names <- function(x, y) mapply(function(a, b) a - b, b = x, a = y)
map_recycle <- function(x) mapply(function(a, b) a + b, x, 10)
map_more <- function(x) mapply(function(a, k) a * k, x, MoreArgs = list(k = 3))
map_builtin <- function(y, x) mapply(atan2, y, x)
map_unlist <- function(x, y) unlist(Map(function(a, b) a + b, x, y))
lap_unlist <- function(n) unlist(lapply(1:n, function(i) seq_len(i)))
lap_scalar <- function(x) unlist(lapply(x, function(v) v / 2))

# ---- Reduce, Filter ----

red_sum <- function(x) Reduce(`+`, x)
red_acc <- function(x) Reduce("+", x, accumulate = TRUE)
red_init <- function(x) Reduce(function(a, b) a * 10 + b, x, 0)
red_right <- function(x) Reduce(function(a, b) a * 10 + b, x, right = TRUE)
red_right_acc <- function(x) Reduce(function(a, b) a * 10 + b, x, 0, right = TRUE, accumulate = TRUE)
red_left_acc_init <- function(x) Reduce(function(a, b) a * 10 + b, x, 1, accumulate = TRUE)
red_int <- function(n) Reduce(function(a, b) a + b, 1:n)
red_widen <- function(n) Reduce(function(a, b) a + b / 2, 1:n)
red_max <- function(x) Reduce(max, x)
red_init_only <- function(x) Reduce(`+`, x, 5)
fil <- function(x) Filter(function(v) v > 2, x)
fil_builtin <- function(x) Filter(is.finite, x)

# ---- outer, apply ----

out_default <- function(x, y) outer(x, y)
out_fun <- function(x, y) outer(x, y, function(a, b) a * 10 + b)
out_str <- function(x, y) outer(x, y, "-")
out_const <- function(x, y) outer(x, y, function(a, b) 1)
out_extra <- function(x, y, p) outer(x, y, function(a, b, q) (a + b)^q, p)
app_rows <- function(m) apply(m, 1, sum)
app_cols <- function(m) apply(m, 2, function(col) max(col) - min(col))
app_vec <- function(m) apply(m, 1, function(r) r * 2)
app_extra <- function(m, k) apply(m, 2, function(col, s) sum(col) * s, k)

# ---- argument matching ----

arg_partial <- function(x) {
  g <- function(alpha, beta) alpha - beta
  g(b = x, a = 10)
}
weighted <- function(values, weight = 1) values * weight
arg_partial_top <- function(x) weighted(x, wei = 3)
arg_mixed <- function(x) weighted(weight = 2, x)
cplx_partial <- function(r, i) complex(real = r, imag = i)
matrix_partial <- function(x) matrix(x, nr = 2)
matrix_byrow_default <- function(x) matrix(x, 2, byrow = FALSE)
seq_partial_len <- function(n) seq(1, n, len = 4)
rep_partial <- function(x) rep(x, t = 2)
numeric_partial <- function(n) numeric(len = n)
