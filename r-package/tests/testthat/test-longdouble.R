# R accumulates sum, prod, mean, cumsum, cumprod and rowSums & co. in long double (x87
# 80-bit on x86-64): compiled code does too, so results are identical() to R's (issue 23).

# No on-disk cache here: these compiles must not serve later files' functions (the
# semantics tests count their own compiles and disk writes).
opts_before <- vr_options()
vr_options(cache_dir = "")

long_double_is_x87 <- function() {
  identical(R.version$arch, "x86_64") && isTRUE(.Machine$longdouble.digits == 64L)
}

# Values spanning 16 orders of magnitude, both signs.
wide <- function(n) sample(c(-1, 1), n, TRUE) * runif(n, 1, 10) * 10^sample(-8:7, n, TRUE)

test_that("the cancellation cases give R's answers", {
  skip_if_not(long_double_is_x87(), "R's long double is not the x87 format here")
  x <- c(1e16, 1, -1e16, 1)
  fs <- list(function(x) sum(x), function(x) mean(x), function(x) prod(x),
    function(x) cumsum(x), function(x) cumprod(x))
  for (f in fs) expect_identical(vr_compile(f, fallback = FALSE)(x), f(x))
  s <- vr_compile(function(x) sum(x), fallback = FALSE)
  expect_identical(s(x), 2)
  m <- vr_compile(function(x) mean(x), fallback = FALSE)
  expect_identical(m(x), 0.5)
  # Past DBL_MAX R's sum is Inf, its colSums the largest double.
  big <- c(.Machine$double.xmax, 2^969)
  expect_identical(s(big), Inf)
  cs <- vr_compile(function(m) colSums(m), fallback = FALSE)
  expect_identical(cs(matrix(big)), colSums(matrix(big)))
  # The 80-bit exponent: 1e300 * 1e300 * 1e-300 is not Inf.
  p <- vr_compile(function(x) prod(x), fallback = FALSE)
  expect_identical(p(c(1e300, 1e300, 1e-300)), prod(c(1e300, 1e300, 1e-300)))
})

test_that("random wide-range vectors and matrices: identical() to R, serial and parallel", {
  skip_if_not(long_double_is_x87(), "R's long double is not the x87 format here")
  set.seed(23)
  x <- wide(2e5)
  y <- wide(2e5)
  m <- matrix(wide(500 * 300), 500, 300)
  i <- sample(-1000000:1000000, 1e5, TRUE)
  z <- complex(real = wide(1e4), imaginary = wide(1e4))
  f <- exp(runif(1e4, -1.5, 1.5))
  old <- vr_options()
  on.exit(vr_options(threads = old$threads))
  for (threads in c(1, 2)) {
    vr_options(threads = threads)
    one <- list(sum = function(x) sum(x), mean = function(x) mean(x),
      cumsum = function(x) cumsum(x), prod = function(x) prod(x),
      cumprod = function(x) cumprod(x))
    for (nm in names(one)) {
      g <- vr_compile(one[[nm]], fallback = FALSE)
      arg <- if (nm %in% c("prod", "cumprod")) f else x
      expect_identical(g(arg), one[[nm]](arg), info = paste(nm, threads))
    }
    margins <- list(colSums = function(m) colSums(m), rowSums = function(m) rowSums(m),
      colMeans = function(m) colMeans(m), rowMeans = function(m) rowMeans(m),
      sum = function(m) sum(m), mean = function(m) mean(m))
    for (nm in names(margins)) {
      g <- vr_compile(margins[[nm]], fallback = FALSE)
      expect_identical(g(m), margins[[nm]](m), info = paste(nm, threads))
    }
    chain <- function(x, y) sum(x * y + 1) + mean(x - 2 * y)
    expect_identical(vr_compile(chain, fallback = FALSE)(x, y), chain(x, y))
    im <- function(i) mean(i)
    expect_identical(vr_compile(im, fallback = FALSE)(i), im(i))
    cz <- function(z) c(sum(z), mean(z), prod(z[1:50]))
    expect_identical(vr_compile(cz, fallback = FALSE)(z), cz(z))
  }
  # The double accumulation these replaced differs from R on these inputs.
  loop_sum <- function(x) { s <- 0; for (v in x) s <- s + v; s }
  expect_false(identical(loop_sum(x), sum(x)))
})

test_that("an explicit loop adds in double, as R's loop does", {
  f <- function(x) {
    s <- 0
    for (i in seq_along(x)) s <- s + x[i]
    s
  }
  g <- vr_compile(f, fallback = FALSE)
  x <- c(1e16, 1, -1e16, 1)
  expect_identical(g(x), f(x))
  expect_identical(g(x), 1)
})

vr_options(cache_dir = opts_before$cache_dir)
