# gpu({ ... }) sections and vr_options(gpu = ): the same results as R wherever the
# section runs (an OpenCL device, PoCL's CPU device in CI, or the CPU), and vr_explain()
# saying where it ran, what moved and how long it took.

smooth <- function(u, steps, alpha) {
  n <- length(u)
  v <- u
  gpu({
    for (s in seq_len(steps)) {
      for (i in prange(n - 2)) {
        v[i + 1] <- u[i + 1] + alpha * (u[i] - 2 * u[i + 1] + u[i + 2])
      }
      u <- v
    }
    w <- u * u + 1
    top <- max(w)
    energy <- sum(w)
  })
  c(energy, top)
}

scale_rows <- function(m, k) {
  gpu({
    p <- m %*% t(m)
    r <- m[2:3, ] * k - 1
    s <- max(abs(r))
  })
  p * s + sum(r)
}

test_that("vr_options(gpu = ) takes auto, on and off", {
  old <- vr_options()
  on.exit(vr_options(gpu = old$gpu))
  expect_identical(old$gpu, "auto")
  expect_error(vr_options(gpu = "yes"), "must be")
  vr_options(gpu = "off")
  expect_identical(vr_options()$gpu, "off")
  expect_match(vr_stats()$gpu, "^off: ")
})

test_that("a gpu section gives R's results and vr_explain() reports it", {
  old <- vr_options()
  on.exit(vr_options(gpu = old$gpu))
  # "on": any OpenCL device (PoCL's CPU device here); none: a warning, the CPU.
  withCallingHandlers(vr_options(gpu = "on"), velociraptor_gpu = function(w) invokeRestart("muffleWarning"))
  where <- vr_stats()$gpu
  on_device <- !grepl("sections run on the CPU", where, fixed = TRUE)
  u0 <- sin(seq_len(5000) / 50)^2
  g <- vr_compile(smooth)
  expect_identical(g(u0, 7, 0.2), smooth(u0, 7, 0.2))
  expect_identical(g(u0, 3, 0.1), smooth(u0, 3, 0.1))
  invisible(capture.output(e <- vr_explain(g, vrir = FALSE)))
  report <- e[[1]]$report
  line <- grep("^gpu section 1 \\(smooth, lines", strsplit(report, "\n")[[1]], value = TRUE)
  expect_length(line, 1L)
  if (on_device) {
    expect_match(line, "in 2 run\\(s\\); [0-9]+ kernel launch")
    # The first run: the two inputs up; the second finds u0 still on the device
    # (residency: the same vector, unchanged), so only v goes up. Each run brings only
    # w down (for sum(), which stays on the CPU).
    expect_match(line, "to the device 3 transfer\\(s\\), 120.0 kB; to the host 2 transfer\\(s\\), 80.0 kB")
    expect_match(line, "ms in transfers, [0-9.]+ ms in kernels")
    expect_match(report, "gpu note: smooth line [0-9]+: on the CPU: sum accumulated in f80")
  } else {
    expect_match(line, "ran on the CPU in all 2 run\\(s\\)")
  }
})

test_that("matrix products, transposes and slices in a section give R's results", {
  old <- vr_options()
  on.exit(vr_options(gpu = old$gpu))
  withCallingHandlers(vr_options(gpu = "on"), velociraptor_gpu = function(w) invokeRestart("muffleWarning"))
  g <- vr_compile(scale_rows)
  # Small integers: every product and sum is exact, whatever the order of additions.
  m <- matrix(as.double((1:12) %% 5 - 2), 4, 3)
  expect_identical(g(m, 3), scale_rows(m, 3))
  invisible(capture.output(e <- vr_explain(g, vrir = FALSE)))
  if (!grepl("sections run on the CPU", vr_stats()$gpu, fixed = TRUE)) {
    # m %*% t(m): transpose and matmul; m[2:3, ] * k - 1: a slice and one fused kernel;
    # max(abs(r)): abs, then a tree reduction.
    expect_match(e[[1]]$report, "gpu section 1 \\(scale_rows, lines [0-9-]+\\): ran on .* in 1 run\\(s\\); 6 kernel launch\\(es\\), 0 task\\(s\\) on the CPU")
  }
  vr_options(gpu = "off")
  g2 <- vr_compile(scale_rows)
  expect_identical(g2(m, 3), scale_rows(m, 3))
  invisible(capture.output(e2 <- vr_explain(g2, vrir = FALSE)))
  expect_match(e2[[1]]$report, "gpu sections: 1, run on the CPU (backend cpu-par)", fixed = TRUE)
})
