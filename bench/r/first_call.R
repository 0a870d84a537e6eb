# First calls as a user sees them (issue 18 part 3): compile plus the first run of each
# array-style kernel of bench/r, in its loop and its array style, at a small size (the
# `--quick` size of array_style.R: the run is nothing, the compile is all), at the full
# size (array_style.R's) and at a long size (5-10x the full size's work, where a first
# call runs 0.1-1 s), under each of vr_options(tiers = "full", "quick-first", "auto").
# Each tiers setting and size runs in an R process of its own, with no on-disk cache, so
# every first call is a cold compile (the process's first compile also pays LLVM's
# start-up, as an interactive session's does). Results are checked against R's (at the
# long size against the C reference's, since R's loops would take minutes there).
#
#   Rscript bench/r/first_call.R [--tiers=full,quick-first,auto] [--sizes=small,full,long]
#                                [--out=DIR]
#
# Rows of r-first-call.csv (configs `first-call-TIERS`, `second-call-TIERS`; record.R)
# in the run's folder. The table's `auto` column says what auto chose for the call
# (vr_explain()'s `code:` line: the estimate, and whether the call waited).

args <- commandArgs(trailingOnly = TRUE)
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
script <- if (length(file_arg)) normalizePath(sub("^--file=", "", file_arg[1])) else "bench/r/first_call.R"
here <- dirname(script)
source(file.path(here, "record.R"))
source(file.path(here, "harness.R"))
arg_value <- function(name, default) {
  v <- sub(paste0("^--", name, "="), "", grep(paste0("^--", name, "="), args, value = TRUE))
  if (length(v)) v[1] else default
}

if ("--child" %in% args) {
  lib <- Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")
  if (!suppressWarnings(requireNamespace("velociraptor", lib.loc = c(lib, .libPaths()), quietly = TRUE)))
    stop("the velociraptor package is not installed (R CMD INSTALL -l DIR r-package; VR_R_LIB=DIR)")
  vr_compile <- velociraptor::vr_compile
  prange <- velociraptor::prange
  tiers <- arg_value("tiers", "full")
  velociraptor::vr_options(cache_dir = "", tiers = tiers)
  load_kernels(c("arc_distance", "rosen_der", "black_scholes", "stencil5", "matmul_loops",
    "nbody1d", "pi_sum"))
  set.seed(42)
  size <- arg_value("size", "small")
  long <- identical(size, "long")
  if (long) build_c_refs()
  long_sizes <- c(arc_distance = 4e6, rosen_der = 4e7, black_scholes = 1e7, stencil5 = 6000,
    matmul_loops = 600, nbody1d = 8000, pi_sum = 40000)
  for (k in array_style_kernels(quick = identical(size, "small"))) {
    if (long) k$size <- long_sizes[[k$name]]
    a <- k$inputs(k$size)
    # pi_sum's k * k is an R integer: 40000 at most, so the long size repeats more.
    if (long && k$name == "pi_sum") a[[1]] <- 2500
    reference <- if (long) k$c_call(a)
    for (variant in c("loop", "vec")) {
      name <- k[[variant]]
      expected <- if (long) reference else do.call(get(name), a)
      g <- compile_named(name)
      first <- run_times(1, function() do.call(g, a))
      second <- run_times(1, function() do.call(g, a))
      if (!same(do.call(g, a), expected)) stop(name, ": the compiled result differs from R's")
      ex <- paste(capture.output(velociraptor::vr_explain(g, vrir = FALSE)), collapse = "\n")
      code <- sub("^ *", "", grep("^ *code: ", strsplit(ex, "\n")[[1]], value = TRUE))
      auto <- if (length(code) && grepl("tiers auto: ", code)) sub(".*tiers auto: ", "", code) else ""
      choice <- if (!nzchar(auto)) "-" else if (grepl("then ran the quick", auto)) "waited, then quick"
        else if (grepl("waited for the full tier", auto)) "waited" else if (grepl("ran the quick tier", auto)) "quick"
        else "-"
      est <- sub(".*about ([0-9.]+) ms at full strength.*", "\\1", code)
      if (!length(code) || identical(est, code)) est <- if (length(code) && grepl("guessed", code)) "guessed" else "-"
      # Let this function's background compile end before the next one's first call.
      invisible(velociraptor::vr_stats())
      cat(sprintf("%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\n", k$name, variant, format(k$size, scientific = FALSE),
        1000 * first, 1000 * second, choice, est))
    }
  }
  quit(save = "no")
}

rscript <- file.path(R.home("bin"), "Rscript")
modes <- strsplit(arg_value("tiers", "full,quick-first,auto"), ",")[[1]]
results <- list()
sizes <- strsplit(arg_value("sizes", "small,full,long"), ",")[[1]]
for (size in sizes) for (mode in modes) {
  out <- system2(rscript, c(shQuote(script), "--child", paste0("--tiers=", mode), paste0("--size=", size)),
    stdout = TRUE, env = paste0("VR_R_LIB=", Sys.getenv("VR_R_LIB", "/tmp/rbench-lib")))
  if (!is.null(attr(out, "status"))) stop("the ", mode, " ", size, " run failed")
  for (line in out) {
    f <- strsplit(line, "\t")[[1]]
    results[[length(results) + 1]] <- data.frame(kernel = f[1], variant = f[2], size = f[3], class = size,
      tiers = mode, first_ms = as.numeric(f[4]), second_ms = as.numeric(f[5]), choice = f[6], estimate_ms = f[7])
    record(paste0(f[1], if (f[2] == "vec") "_vec" else ""), f[3], paste0("first-call-", mode), 1L, as.numeric(f[4]) / 1000)
    record(paste0(f[1], if (f[2] == "vec") "_vec" else ""), f[3], paste0("second-call-", mode), 1L, as.numeric(f[5]) / 1000)
  }
  cat(sprintf("%s size, tiers %s: done\n", size, mode), file = stderr())
}
r <- do.call(rbind, results)

cat(sprintf("\nFirst calls (compile + first run, ms), cold, one R process per column and size: %s, R %s\n\n",
  format(Sys.time(), "%Y-%m-%d %H:%M %Z", tz = "UTC"), getRversion()))
cat(paste0("| kernel | style | size | ", paste(sprintf("%s ms", modes), collapse = " | "),
  if ("auto" %in% modes) " | auto chose (estimate at full strength, ms) |" else " |", "\n"))
cat(paste0("| --- | --- | ---: | ", paste(rep("---:", length(modes)), collapse = " | "),
  if ("auto" %in% modes) " | --- |" else " |", "\n"))
keys <- unique(r[, c("kernel", "variant", "size", "class")])
for (i in seq_len(nrow(keys))) {
  sel <- r[r$kernel == keys$kernel[i] & r$variant == keys$variant[i] & r$class == keys$class[i], ]
  cells <- vapply(modes, function(m) fmt(sel$first_ms[sel$tiers == m], 1), "")
  auto <- sel[sel$tiers == "auto", ]
  chose <- if (nrow(auto)) sprintf(" | %s (%s) |", auto$choice, auto$estimate_ms) else " |"
  cat(sprintf("| %s | %s | %s | %s%s\n", keys$kernel[i], if (keys$variant[i] == "vec") "array" else "loops",
    keys$size[i], paste(cells, collapse = " | "), chose))
}
for (cl in sizes) {
  med <- vapply(modes, function(m) median(r$first_ms[r$class == cl & r$tiers == m]), 0)
  cat(sprintf("\nmedian first call, %s sizes: %s\n", cl, paste(sprintf("%s %s ms", modes, vapply(med, fmt, "", d = 1)), collapse = ", ")))
}
write_records("r-first-call.csv", args)
