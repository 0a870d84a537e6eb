# Residency (issue 19, docs/gpu.md "Residency"): a vector passed again to a function
# with a gpu({ ... }) section stays on the device and is not uploaded again; a vector R
# changes is a new vector (the one passed is marked not mutable, so R copies it first),
# uploaded again; a write between two sections of one call reaches the second. The
# results are R's own in every case.

scale2 <- function(x, k) {
  gpu({
    y <- x * k + 1
  })
  y
}

between <- function(x) {
  gpu({
    y <- x * 2
  })
  x[1] <- 100
  s <- y[2] + 1
  y[3] <- s
  gpu({
    z <- x + y * 3
  })
  z
}

gpu_on <- function() {
  withCallingHandlers(vr_options(gpu = "on"), velociraptor_gpu = function(w) invokeRestart("muffleWarning"))
  !grepl("sections run on the CPU", vr_stats()$gpu, fixed = TRUE)
}

section_line <- function(g, k = 1) {
  invisible(capture.output(e <- vr_explain(g, vrir = FALSE)))
  grep(paste0("^gpu section ", k, " "), strsplit(e[[1]]$report, "\n")[[1]], value = TRUE)
}

uploads <- function(line) as.numeric(sub(".*to the device ([0-9]+) transfer.*", "\\1", line))

test_that("a vector passed again stays on the device, a changed one goes up again", {
  old <- vr_options()
  on.exit(vr_options(gpu = old$gpu))
  on_device <- gpu_on()
  g <- vr_compile(scale2)
  x <- as.double(1:1000)
  for (i in 1:5) expect_identical(g(x, 2), scale2(x, 2))
  if (on_device) {
    expect_match(section_line(g), "in 5 run\\(s\\)")
    # x went up at the first call only; y (a fresh result) never goes up.
    expect_equal(uploads(section_line(g)), 1)
  }
  # R changes x: a copy (x was marked not mutable), at another address: uploaded.
  x[3] <- -7
  expect_identical(g(x, 2), scale2(x, 2))
  for (i in 1:3) {
    x[i] <- i * 10
    expect_identical(g(x, 2), scale2(x, 2))
    expect_identical(g(x, 3), scale2(x, 3))
  }
  if (on_device) {
    # One upload per new x (4), none for the second call with each.
    expect_equal(uploads(section_line(g)), 5)
  }
  # The same values in another vector: its own upload, and the right answer.
  x2 <- x + 0
  expect_identical(g(x2, 2), scale2(x2, 2))
})

test_that("R code between two sections reads what the first wrote and its writes reach the second", {
  old <- vr_options()
  on.exit(vr_options(gpu = old$gpu))
  gpu_on()
  g <- vr_compile(between)
  x <- c(1, 2, 3, 4)
  expect_identical(g(x), between(x))
  expect_identical(g(x), c(106, 14, 18, 28))
  expect_identical(x, c(1, 2, 3, 4))
  # Again with the same vector (resident across calls): still R's answer.
  expect_identical(g(x), between(x))
})
