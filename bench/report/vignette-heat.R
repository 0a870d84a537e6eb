# The vignette's chart: its own example, heat() (examples/heat.R, the function the vignette
# compiles), timed in R and through vr_compile() at a few grid sizes, 50 time steps each.
# Writes the times as CSV (the columns of bench/src/record.rs) and draws
# r-package/vignettes/heat-speedup.png from them, a static file the vignette includes (so
# that R CMD check neither times nor needs ggplot2).
#
#   Rscript bench/report/vignette-heat.R [--measure] RUN_DIR
#
# --measure times the installed velociraptor package (R_LIBS picks which) into
# RUN_DIR/heat-vignette.csv; without it the chart is drawn from that file. The commit the
# CSV (and so the caption) names is this checkout's ($VR_BENCH_COMMIT overrides): install
# the package from the same checkout (R CMD INSTALL -l DIR r-package; R_LIBS=DIR).
suppressPackageStartupMessages(library(ggplot2))
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
source(file.path(if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "bench/report", "common.R"))
args <- commandArgs(trailingOnly = TRUE)
measure <- "--measure" %in% args
run <- setdiff(args, "--measure")
if (length(run) != 1) stop("usage: Rscript bench/report/vignette-heat.R [--measure] RUN_DIR")
csv <- file.path(run, "heat-vignette.csv")
png <- "r-package/vignettes/heat-speedup.png"

if (measure) {
  library(velociraptor)
  vr_options(cache_dir = file.path(tempdir(), "vr-cache"))
  source("examples/heat.R")
  steps <- 50
  heat_c <- vr_compile(heat)
  commit <- Sys.getenv("VR_BENCH_COMMIT", system("git rev-parse --short HEAD", intern = TRUE))
  machine <- sprintf("%s, %d cores", sub(".*: ", "", grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    parallel::detectCores())
  date <- format(Sys.time(), "%Y-%m-%dT%H:%M:%SZ", tz = "UTC")
  # Seconds per call: each repetition calls f until 20 ms have passed (system.time's clock
  # ticks in milliseconds; the compiled small grids take less than one).
  elapsed <- function(f, reps) vapply(seq_len(reps), function(i) {
    calls <- 0
    start <- proc.time()[["elapsed"]]
    repeat {
      f()
      calls <- calls + 1
      used <- proc.time()[["elapsed"]] - start
      if (used >= 0.02) return(used / calls)
    }
  }, 0)
  rows <- list()
  row <- function(n, config, t) data.frame(kernel = "heat", size = n, config = config, threads = 1,
    median_s = median(t), min_s = min(t), max_s = max(t), reps = length(t), machine = machine, date = date, commit = commit)
  for (n in c(25, 50, 100, 200)) {
    first <- system.time(heat_c(n, steps))[["elapsed"]]       # compiles once per signature
    if (!isTRUE(all.equal(heat_c(n, steps), heat(n, steps), tolerance = 1e-12))) stop("heat: compiled differs from R at n = ", n)
    rows[[length(rows) + 1]] <- row(n, "r", elapsed(function() heat(n, steps), 5))
    rows[[length(rows) + 1]] <- row(n, "vr", elapsed(function() heat_c(n, steps), 15))
    if (n == 25) rows[[length(rows) + 1]] <- row(n, "vr-first-call", first)
  }
  dir.create(run, recursive = TRUE, showWarnings = FALSE)
  write.csv(do.call(rbind, rows), csv, row.names = FALSE)
}

d <- read.csv(csv, stringsAsFactors = FALSE)
t <- d[d$config %in% c("r", "vr"), ]
t$what <- ifelse(t$config == "r", "R (byte-compiled)", "vr_compile(heat)")
# The fastest repetition: on a shared machine the others measure its other work as much.
sp <- merge(t[t$config == "r", c("size", "min_s")], t[t$config == "vr", c("size", "min_s")], by = "size")
sp$label <- sprintf("%.0fx", sp$min_s.x / sp$min_s.y)
sp$y <- sqrt(sp$min_s.x * sp$min_s.y) * 1e3
p <- ggplot(t, aes(x = size, y = min_s * 1e3, colour = what)) +
  geom_segment(data = sp, aes(x = size, xend = size, y = min_s.y * 1e3, yend = min_s.x * 1e3), inherit.aes = FALSE,
    colour = "grey75", linewidth = 3, alpha = 0.6) +
  geom_text(data = sp, aes(x = size, y = y, label = label), inherit.aes = FALSE, hjust = -0.3, size = 3.6, colour = "grey20") +
  geom_line(linewidth = 0.9) + geom_point(size = 2) +
  scale_x_continuous(trans = "log2", breaks = unique(t$size), labels = function(x) paste0(x, "x", x),
    expand = expansion(mult = c(0.05, 0.12))) +
  scale_y_log10(labels = function(x) format(x, big.mark = ",", scientific = FALSE, trim = TRUE, drop0trailing = TRUE)) +
  scale_colour_manual(values = c("R (byte-compiled)" = "#d7301f", "vr_compile(heat)" = "#1b6ca8")) +
  labs(title = "heat(n, 50): R against vr_compile()", subtitle = "time per call, fastest repetition; log-log\nlabels: R's time / compiled time",
    x = "grid (n x n)", y = "ms per call (log scale)", colour = NULL,
    caption = caption_of(d)) +
  theme_report
ggsave(png, p, width = 6.5, height = 4.2, dpi = 100, bg = "white")
cat("vignette chart:", png, "from", csv, "\n")
