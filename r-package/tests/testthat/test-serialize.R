sumsq <- function(x) {
  s <- 0
  for (i in seq_along(x)) s <- s + x[i]^2
  s
}

test_that("a compiled function survives serialize(): it keeps its source and compiles again", {
  g <- vr_compile(sumsq, fallback = FALSE)
  expect_identical(g(c(1, 2)), 5)
  g2 <- unserialize(serialize(g, NULL))
  expect_no_warning(expect_identical(g2(c(1, 2, 3)), 14))
  f <- tempfile(fileext = ".rds")
  saveRDS(g, f)
  expect_identical(readRDS(f)(c(3, 4)), 25)
})

test_that("parLapply on a PSOCK cluster of 2 and mclapply run compiled functions", {
  skip_if_not_installed("parallel")
  g <- vr_compile(sumsq, fallback = FALSE)
  inputs <- list(c(1, 2), c(3, 4, 5), as.numeric(1:10))
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths())
  got <- parallel::parLapply(cl, inputs, function(x, h) h(x), h = g)
  expect_identical(got, lapply(inputs, sumsq))
  if (.Platform$OS.type == "unix") {
    got2 <- parallel::mclapply(inputs, g, mc.cores = 2)
    expect_identical(got2, lapply(inputs, sumsq))
  }
})
