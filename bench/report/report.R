# The benchmark report: PNG charts (ggplot2) and bench/REPORT.md from the CSV files that
# the benchmarks write into a run's folder (vr-bench.csv, r-bench.csv, r-random.csv,
# r-array-style.csv, vr-bench-julia.csv, vr-bench-compile.csv, cache.csv,
# octave-bench.csv, vr-bench-gpu.csv; see bench/src/record.rs for the columns). Several folders may be given: a device-machine
# run for 16-core or GPU numbers and a local run for R's, say; each chart's caption
# names the machine, date and commit its rows come from.
#
#   Rscript bench/report/report.R [--charts DIR] [--report FILE] RUN_DIR...
#
# Defaults: charts into bench/report/, the page into bench/REPORT.md. A chart whose data
# is missing from every folder is skipped, and the page says so.
suppressPackageStartupMessages(library(ggplot2))
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
source(file.path(if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "bench/report", "common.R"))

args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default) {
  at <- which(args == name)
  if (length(at)) args[at + 1] else default
}
charts_dir <- opt("--charts", "bench/report")
report_file <- opt("--report", "bench/REPORT.md")
flag_values <- c(which(args %in% c("--charts", "--report")), which(args %in% c("--charts", "--report")) + 1)
runs <- if (length(flag_values)) args[-flag_values] else args
if (!length(runs)) stop("usage: Rscript bench/report/report.R [--charts DIR] [--report FILE] RUN_DIR...")
dir.create(charts_dir, recursive = TRUE, showWarnings = FALSE)

# Every CSV of the runs, by file name (the last run given wins for a file present twice).
read_runs <- function(file) {
  found <- Filter(file.exists, file.path(runs, file))
  if (!length(found)) return(NULL)
  d <- read.csv(found[length(found)], stringsAsFactors = FALSE)
  d$size <- as.character(d$size)
  d
}
vr <- read_runs("vr-bench.csv")
rb <- read_runs("r-bench.csv")
cache <- read_runs("cache.csv")
gpu <- read_runs("vr-bench-gpu.csv")
peers <- read_runs("peers-gpu.csv")
oct <- read_runs("octave-bench.csv")
jl <- read_runs("vr-bench-julia.csv")
comp <- read_runs("vr-bench-compile.csv")
# random.R's kernels have run.R's configurations (r, vr-checks-on); array_style.R's are
# R's vectorized versions (r-vec, vr-vec).
rrand <- read_runs("r-random.csv")
rarr <- read_runs("r-array-style.csv")

# One time per (kernel, config, threads): the median column.
at <- function(d, k, config, threads = NULL) {
  rows <- d[d$kernel == k & d$config == config, ]
  if (!is.null(threads)) rows <- rows[rows$threads == threads, ]
  if (!nrow(rows)) NA_real_ else rows$median_s[nrow(rows)]
}
captions <- list()
save <- function(plot, name, width = 8, height = 5) {
  path <- file.path(charts_dir, name)
  captions[[name]] <<- gsub("\n", "; and ", plot$labels$caption)
  ggsave(path, plot, width = width, height = height, dpi = 110, bg = "white")
  path
}
fmt <- function(x, d = 2) formatC(x, format = "f", digits = d)
# Why a kernel stands out, as far as bench/RESULTS.md has traced it: said on the page only
# for the kernels that the data of these runs flags (slow against C, poor scaling, GPU
# kernel slower than cpu-par), so that a new run without the problem does not repeat it.
known <- list(
  r_speedup = c(
    arc_distance = "(arc_distance's loop body is a few calls of sin, cos and atan2, which R evaluates in C as compiled code does.)",
    rosen_der = "(rosen_der's body is one line of arithmetic per element, little for R to interpret.)"),
  vs_c = c(
    growcut = "growcut's serial build still does the parallel loop's atomic add per cell (a locked instruction per cell; the parallel build keeps one count per chunk instead), which C's plain counter does not pay.",
    matmul_loops = "matmul_loops' inner product is a loop-carried sum that neither side vectorizes; its ratio moves most between runs.",
    crni = "crni's loop reads u(i - 1) and u(i + 1) under if-guards, so bounds-check versioning keeps the checked copy."),
  scaling = c(
    rosen_der = "rosen_der is memory-bound (a few flops per element streamed), so cpu-par and OpenMP alike stop where the machine's memory bandwidth ends.",
    stencil5 = "stencil5 is memory-bound too (five flops per point of a 2000x2000 grid streamed per call)."),
  scaling_ideal = c(
    growcut = "growcut is at or above the ideal line because its serial build pays an atomic add per cell that the parallel build replaces by one count per chunk."),
  gpu = c(
    matmul_loops = "matmul_loops' generated GPU kernel is one work-item per output with a serial, untiled inner product reading b column-wise, so even its kernel alone is slower than 16 cores (the library's tiled matmul is what %*% gets; issue 19).",
    julia_set = "julia_set's kernel alone is about as fast as cpu-par: at 400x400 points there are too few work-items to fill the H100.",
    nbody1d = "nbody1d at 3000 bodies is a small O(n^2) problem for the H100."))
why <- function(key, kernels) {
  text <- known[[key]][intersect(kernels, names(known[[key]]))]
  if (length(text)) paste("", paste(text, collapse = " ")) else ""
}
made <- list()
notes <- list()

# (a) Compiled code over the host's own interpreter, per kernel (log scale): R's kernels
# serial and parallel; Octave's (octave-bench.csv, from scripts/bench-octave.sh --out RUN)
# serial, against Octave's interpreter time scaled from its reduced size (octave-scaled),
# in a panel of their own.
have_r <- !is.null(rb) && any(rb$config == "vr-checks-on")
have_oct <- !is.null(oct) && any(oct$config == "compiled")
if (have_r || have_oct) {
  cores <- if (have_r) sub(".*, ([0-9]+) cores$", "\\1", unique(rb$machine)) else character()
  variants <- c("compiled, serial", if (have_r) sprintf("compiled, prange() on all %s cores", paste(cores, collapse = " or ")))
  d <- NULL
  if (have_r) {
    rk <- rbind(rb, rrand)
    ks <- setdiff(unique(rk$kernel), "call_overhead")
    d <- do.call(rbind, lapply(ks, function(k) {
      r <- at(rk, k, "r")
      data.frame(host = "R", kernel = k, variant = variants, speedup = r / c(at(rk, k, "vr-checks-on"), at(rk, k, "vr-par")))
    }))
    if (!is.null(rarr)) {
      ka <- unique(rarr$kernel)
      d <- rbind(d, data.frame(host = "R", kernel = paste(ka, "(array style)"), variant = variants[1],
        speedup = vapply(ka, function(k) at(rarr, k, "r-vec") / at(rarr, k, "vr-vec"), 0)))
    }
  }
  if (have_oct) {
    ko <- unique(oct$kernel[oct$config == "compiled"])
    d <- rbind(d, data.frame(host = "Octave", kernel = ko, variant = variants[1],
      speedup = vapply(ko, function(k) at(oct, k, "octave-scaled") / at(oct, k, "compiled"), 0)))
  }
  d <- d[is.finite(d$speedup), ]
  # Kernels sorted by serial speedup within each host's panel (the key keeps a name that
  # both hosts use apart; the axis shows the kernel's name only).
  d$key <- paste(d$host, d$kernel, sep = ":")
  order <- d[d$variant == variants[1], ]
  d$key <- factor(d$key, levels = order$key[order(order$speedup)])
  d$host <- factor(d$host, levels = c("R", "Octave"))
  d$variant <- factor(d$variant, levels = rev(variants))
  d$label <- paste0(ifelse(d$speedup >= 100, fmt(d$speedup, 0), fmt(d$speedup, 1)), "x")
  hosts <- c(if (have_r) paste0("R: byte-compiled, as R runs a function by default",
      if (!is.null(rarr)) "\n(array style): R's vectorized version of the kernel, in R and compiled" else ""),
    if (have_oct) "Octave: its interpreter timed at a reduced size, scaled by the work to the compiled size")
  p <- ggplot(d, aes(x = key, y = speedup, fill = variant)) +
    geom_col(position = position_dodge(width = 0.8), width = 0.75) +
    geom_text(aes(label = label, hjust = ifelse(speedup >= 1, -0.15, 1.15)), position = position_dodge(width = 0.8), size = 3, colour = "grey20") +
    geom_hline(yintercept = 1, colour = "grey30") +
    scale_x_discrete(labels = function(x) sub("^[^:]*:", "", x)) +
    # 1-3-10 steps over up to three decades; beyond, the 3s would crowd the axis labels
    scale_y_log10(breaks = if (diff(log10(range(d$speedup))) > 3) 10^(-3:5) else c(0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000),
      labels = function(x) paste0(x, "x"),
      expand = expansion(mult = c(if (any(d$speedup < 1)) 0.12 else 0, 0.16))) +
    scale_fill_manual(values = setNames(c("#1b6ca8", "#f29e4c")[seq_along(variants)], variants), breaks = variants) +
    coord_flip() +
    labs(title = if (have_oct && have_r) "vr_compile(): speedup over the host's interpreter, per kernel"
        else if (have_r) "vr_compile(): speedup over R, per kernel" else "vr_compile(): speedup over Octave, per kernel",
      subtitle = paste0("interpreter time / compiled time (medians); log scale\n", paste(hosts, collapse = "\n")),
      x = NULL, y = "speedup over the host's interpreter (log scale)", fill = NULL,
      caption = if (have_r && have_oct) paste0("R: ", caption_of(rbind(rb, rrand, rarr)), "\nOctave: ", caption_of(oct)) else caption_of(if (have_r) rbind(rb, rrand, rarr) else oct)) +
    theme_report
  if (have_r && have_oct) p <- p + facet_grid(host ~ ., scales = "free_y", space = "free_y") +
    theme(strip.text.y = element_text(angle = 0, face = "bold"))
  made$r_speedup <- save(p, "r-speedup.png", height = min(12, max(5, 3 + 0.2 * nlevels(d$key))))
  text <- NULL
  if (have_r) {
    s <- sort(setNames(order$speedup[order$host == "R"], order$kernel[order$host == "R"]))
    par <- d[d$variant == variants[2], ]
    par_gain <- setNames(par$speedup / s[as.character(par$kernel)], as.character(par$kernel))
    text <- paste0(
      sprintf("Serial compiled code is %sx to %sx faster than R (median %sx over %d kernels). ",
        fmt(min(s), 1), fmt(max(s), 0), fmt(median(s), 1), length(s)),
      sprintf("The gain is largest where R interprets every operation of a deep loop nest or call tree (%s) and smallest where R's own time is already in its vectorized C builtins (%s: %sx).",
        paste(sprintf("%s %sx", head(rev(names(s)), 2), fmt(head(rev(s), 2), 0)), collapse = ", "), names(s)[1], fmt(s[1], 1)),
      why("r_speedup", names(s)[1]),
      sprintf(" prange() makes compiled code %sx to %sx as fast as serial here (median %sx) on %s cores%s.",
        fmt(min(par_gain)), fmt(max(par_gain)), fmt(median(par_gain)), paste(cores, collapse = ", "),
        if (any(as.integer(cores) <= 2)) " of a shared VM, too few for parallel loops to pay: the 16-core chart below shows what parallel loops give" else ""))
  }
  if (have_oct) {
    so <- sort(setNames(order$speedup[order$host == "Octave"], order$kernel[order$host == "Octave"]))
    # The Octave version: scripts/bench-octave.sh prints it above the table (octave-bench.md).
    md <- Filter(file.exists, file.path(runs, "octave-bench.md"))
    version <- unique(sub(";.*", "", sub(".*; Octave ", "", grep("; Octave ", unlist(lapply(md, readLines)), value = TRUE))))
    text <- paste0(text, if (!is.null(text)) " ",
      sprintf("The MATLAB kernels of bench/octave through Octave's vr_compile() run %sx to %sx faster than Octave%s's interpreter (median %sx over %d kernels; slowest gain: %s). ",
        fmt(min(so), 0), fmt(max(so), 0), if (length(version)) paste0(" ", version[length(version)]) else "",
        fmt(median(so), 0), length(so), names(so)[1]),
      "Octave's interpreter is timed once at a reduced size (the CSV's `octave` rows) and its time scaled by each kernel's work to the compiled code's size (`octave-scaled`): an estimate that assumes the interpreter's time grows with the work.")
  } else {
    text <- paste0(text, " Octave is not drawn: no octave-bench.csv in these runs (`scripts/bench-octave.sh --out RUN_DIR` writes one); bench/RESULTS.md's Octave section has its last table.")
  }
  notes$r_speedup <- text
}

# (b) Compiled time / C time per kernel and configuration, and cpu-par against C + OpenMP
# on the same number of threads.
if (!is.null(vr) && any(vr$config == "c")) {
  ks <- unique(vr$kernel[vr$config == "c"])
  omp_threads <- unique(vr$threads[vr$config == "openmp"])
  configs <- c("cpu-checks-on" = "cpu, bounds checks as emitted", "cpu-optimized" = "cpu, optimizer",
    "cpu-checks-off" = "cpu, checks off")
  d <- do.call(rbind, lapply(ks, function(k) data.frame(kernel = k, variant = unname(configs),
    ratio = vapply(names(configs), function(cfg) at(vr, k, cfg) / at(vr, k, "c"), 0))))
  par_label <- NULL
  if (length(omp_threads) == 1 && any(vr$config == "cpu-par")) {
    par_label <- sprintf("cpu-par / C + OpenMP, %d threads", omp_threads)
    d <- rbind(d, do.call(rbind, lapply(ks, function(k)
      data.frame(kernel = k, variant = par_label, ratio = at(vr, k, "cpu-par") / at(vr, k, "openmp")))))
  }
  # R's bars are R's time against the same C on its own machine; say which when it differs.
  r_label <- "R's vr_compile(), checks on"
  if (!is.null(rb) && !identical(unique(rb$machine), unique(vr$machine))) {
    r_label <- sprintf("R's vr_compile(), checks on (%s)", paste(unique(rb$machine), collapse = ", "))
  }
  if (!is.null(rb) && any(rb$config == "vr-checks-on")) {
    d <- rbind(d, do.call(rbind, lapply(intersect(ks, rb$kernel), function(k)
      data.frame(kernel = k, variant = r_label, ratio = at(rb, k, "vr-checks-on") / at(rb, k, "c")))))
  }
  d <- d[is.finite(d$ratio), ]
  levels <- c(unname(configs), par_label, r_label)
  d$variant <- factor(d$variant, levels = levels)
  colours <- setNames(c("#9ecae1", "#1b6ca8", "#08306b", "#8c6bb1", "#f29e4c")[c(1:3, if (!is.null(par_label)) 4, 5)], levels)
  p <- ggplot(d, aes(x = kernel, y = ratio, fill = variant)) +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    geom_hline(yintercept = 1, colour = "grey20", linetype = "dashed") +
    scale_y_continuous(labels = function(x) paste0(x, "x"), expand = expansion(mult = c(0, 0.05))) +
    scale_fill_manual(values = colours, drop = FALSE) +
    labs(title = "Compiled code against C, per kernel",
      subtitle = "time / time of the C reference (gcc -O2 -march=native, the same loops)\n1x = C's speed; lower is faster",
      x = NULL, y = "time / C time", fill = NULL, caption = caption_of(rbind(vr, if (!is.null(rb)) rb[rb$config == "vr-checks-on", ]))) +
    theme_report + theme(axis.text.x = element_text(angle = 30, hjust = 1)) +
    guides(fill = guide_legend(ncol = 2))
  made$vs_c <- save(p, "vs-c.png", height = 5.5)
  opt <- setNames(d$ratio[d$variant == "cpu, optimizer"], d$kernel[d$variant == "cpu, optimizer"])
  on <- setNames(d$ratio[d$variant == "cpu, bounds checks as emitted"], d$kernel[d$variant == "cpu, bounds checks as emitted"])
  slow <- names(opt)[opt > 1.3]
  gain <- head(sort(on / opt, decreasing = TRUE), 2)
  notes$vs_c <- paste0(
    sprintf("After the optimizer, serial compiled code runs at a median %sx of C's time (%sx to %sx); %d of %d kernels are within 1.1x of C or faster. ",
      fmt(median(opt)), fmt(min(opt)), fmt(max(opt)), sum(opt <= 1.1), length(opt)),
    sprintf("The optimizer matters most where the front end's bounds checks sit in the inner loop (%s: %s with checks as emitted). ",
      paste(names(gain), collapse = ", "), paste(sprintf("%sx", fmt(on[names(gain)])), collapse = " and ")),
    if (length(slow)) sprintf("Slower than 1.3x C: %s.", paste(sprintf("%s (%sx)", slow, fmt(opt[slow])), collapse = ", ")) else "",
    why("vs_c", slow),
    # A slow optimizer cell whose two neighbours (the same loop with checks, and without) are
    # near C's speed is the machine's noise, not the code's.
    paste(vapply(slow, function(k) {
      off <- d$ratio[d$variant == "cpu, checks off" & d$kernel == k]
      if (on[[k]] < 1.1 && length(off) && off < 1.1) sprintf(" %s's optimizer cell is out of line with the same loop checked (%sx) and unchecked (%sx): noise of the shared machine, not the code.", k, fmt(on[[k]]), fmt(off)) else ""
    }, ""), collapse = ""),
    if (!is.null(par_label)) {
      pr <- d$ratio[d$variant == par_label]
      sprintf(" In parallel, cpu-par takes %sx to %sx of OpenMP's time on the same loops (median %sx).", fmt(min(pr)), fmt(max(pr)), fmt(median(pr)))
    } else "")
}

# (c) Parallel speedup against threads, with OpenMP's curve and the ideal line.
if (!is.null(vr) && any(vr$config == "cpu-par-sweep")) {
  sw <- vr[vr$config %in% c("cpu-par-sweep", "openmp-sweep"), ]
  sw$speedup <- mapply(function(k, cfg, t) {
    if (cfg == "cpu-par-sweep") at(vr, k, "cpu-optimized") / at(vr, k, cfg, t) else at(vr, k, "c") / at(vr, k, cfg, t)
  }, sw$kernel, sw$config, sw$threads)
  lines <- c("Velociraptor cpu-par (over serial cpu)", "C + OpenMP (over serial C)", "ideal (speedup = threads)")
  sw$impl <- ifelse(sw$config == "cpu-par-sweep", lines[1], lines[2])
  threads <- sort(unique(sw$threads))
  ideal <- do.call(rbind, lapply(unique(sw$kernel), function(k) data.frame(kernel = k, threads = threads, speedup = threads, impl = lines[3])))
  p <- ggplot(sw, aes(x = threads, y = speedup, colour = impl, linetype = impl)) +
    geom_line(data = ideal, linewidth = 0.6) +
    geom_line(linewidth = 0.9) + geom_point(size = 1.6) +
    facet_wrap(~kernel, ncol = 4) +
    scale_x_continuous(trans = "log2", breaks = threads) +
    # powers of 2, every one where the range is small, else every second or more: at most
    # about 8 labels, which the small panels still fit
    scale_y_continuous(trans = "log2", breaks = function(l) {
      e <- floor(log2(l[1])):ceiling(log2(l[2]))
      2^e[e %% max(1, ceiling(length(e) / 8)) == 0]
    }, labels = function(x) paste0(signif(x, 2), "x")) +
    scale_colour_manual(values = setNames(c("#1b6ca8", "#d7301f", "grey55"), lines), breaks = lines) +
    scale_linetype_manual(values = setNames(c("solid", "solid", "dashed"), lines), breaks = lines) +
    labs(title = "Parallel speedup against threads", subtitle = "the same parallel loop in both, each over its own serial code; log-log",
      x = "threads", y = "speedup over serial", colour = NULL, linetype = NULL, caption = caption_of(sw)) +
    theme_report + theme(panel.spacing.x = unit(1, "lines"))
  made$scaling <- save(p, "scaling.png", width = 9, height = 5.5)
  top <- max(threads)
  s <- sw[sw$threads == top, ]
  vr_top <- s[s$config == "cpu-par-sweep", ]
  omp_top <- s[s$config == "openmp-sweep", ]
  rel <- setNames(vr_top$speedup / omp_top$speedup[match(vr_top$kernel, omp_top$kernel)], vr_top$kernel)
  sp <- setNames(vr_top$speedup, vr_top$kernel)
  flat <- names(sp)[sp < top / 4]
  notes$scaling <- paste0(
    sprintf("At %d threads cpu-par reaches %sx to %sx over serial (median %sx); relative to OpenMP's speedup on the same loop that is %s to %s (median %s)%s.",
      top, fmt(min(sp), 1), fmt(max(sp), 1), fmt(median(sp), 1), fmt(min(rel)), fmt(max(rel)), fmt(median(rel)),
      if (any(rel < 0.9)) paste0("; below 0.9: ", paste(names(rel)[rel < 0.9], collapse = ", ")) else ", at least 0.9 for every kernel"),
    if (length(flat)) sprintf(" cpu-par stays under %sx for %s.", fmt(top / 4, if (top >= 8) 0 else 1), paste(flat, collapse = ", ")) else "",
    why("scaling", flat),
    why("scaling_ideal", names(sp)[sp >= 0.95 * top]),
    sprintf(" OpenMP's own median speedup at %d threads is %sx on this machine, so what is left below the ideal line is the machine's as much as the code's.",
      top, fmt(median(omp_top$speedup), 1)))
}

# (d) GPU sections against cpu-par, with and without transfers (vr-bench --gpu writes
# vr-bench-gpu.csv: cpu-par on every core, the whole GPU section, and the device's own
# timings of its kernels and of its transfers), and, where the run has peers-gpu.csv
# (bench/peers/gpu_peers.py), the peers' kernel times on the same device: numba-cuda's
# kernel written as the VRIR's loops, and CuPy's array expressions. Only peer rows of the
# bench's size for that kernel are drawn, and none from numba's CUDA simulator.
# A run without an OpenCL device times its GPU sections on the CPU; vr-bench --gpu says so
# above its table ("gpu: no OpenCL device ..."), and such rows are no GPU's.
printed <- unlist(lapply(runs, function(r) unlist(lapply(list.files(r, "\\.(md|log|txt)$", full.names = TRUE), readLines))))
no_device <- any(grepl("^gpu: no OpenCL device", printed))
if (!is.null(gpu) && any(gpu$config == "gpu-total") && !no_device) {
  ks <- unique(gpu$kernel[gpu$config == "gpu-total"])
  cpu_threads <- unique(gpu$threads[gpu$config == "cpu-par"])
  # The device's name: vr-bench --gpu prints it ("gpu: NAME (vendor, ...)") above its table,
  # which the run keeps next to the CSV (vr-bench-gpu.md, or a log that holds it).
  gpu_name <- unique(sub(" \\(.*", "", sub("^gpu: ", "", grep("^gpu: ", printed, value = TRUE))))
  variants <- c("gpu-total" = "whole GPU section (transfers and launch included)",
    "gpu-kernels" = "GPU kernels only (no transfers)")
  d <- do.call(rbind, lapply(ks, function(k) data.frame(kernel = k, variant = unname(variants),
    speedup = vapply(names(variants), function(cfg) at(gpu, k, "cpu-par") / at(gpu, k, cfg), 0))))
  # The peers' kernel times, where measured at the size vr-bench --gpu used: the device's
  # own time between CUDA events (-device), like gpu-kernels' OpenCL profiling stamps,
  # where the run has it, else the host's wall time of launch and synchronize (-kernel).
  gpu_size <- function(k) gpu$size[gpu$kernel == k & gpu$config == "gpu-total"][1]
  pe <- NULL
  if (!is.null(peers)) {
    pe <- peers[!grepl("simulator", peers$machine), ]
    pe <- pe[pe$kernel %in% ks & pe$size == vapply(pe$kernel, gpu_size, ""), ]
    timing <- if (any(pe$config %in% c("numba-cuda-device", "cupy-device"))) "device" else "kernel"
    peer_variants <- setNames(c(sprintf("peer: numba-cuda kernel, the same loops (%s)",
        if (timing == "device") "device time" else "launch + synchronize, host-timed"),
      sprintf("peer: CuPy array expressions (%s)", if (timing == "device") "device time" else "host-timed")),
      paste0(c("numba-cuda-", "cupy-"), timing))
    pe <- pe[pe$config %in% names(peer_variants), ]
    if (!nrow(pe)) pe <- NULL
  }
  if (!is.null(pe)) {
    d <- rbind(d, do.call(rbind, lapply(seq_len(nrow(pe)), function(r) data.frame(kernel = pe$kernel[r],
      variant = peer_variants[[pe$config[r]]], speedup = at(gpu, pe$kernel[r], "cpu-par") / pe$median_s[r]))))
    variants <- c(variants, peer_variants[names(peer_variants) %in% pe$config])
  }
  d <- d[is.finite(d$speedup), ]
  order <- d[d$variant == variants[["gpu-total"]], ]
  bars <- length(variants)
  if (bars > 2) {
    # every kernel gets a slot for every variant (NA where a peer has none: CuPy's julia_set
    # and growcut), so that each bar keeps its place in the group and its label stays on it
    d <- merge(expand.grid(kernel = unique(d$kernel), variant = unname(variants), stringsAsFactors = FALSE), d, all.x = TRUE)
  }
  d$kernel <- factor(d$kernel, levels = order$kernel[order(order$speedup)])
  d$variant <- factor(d$variant, levels = rev(unname(variants)))
  d$label <- ifelse(d$speedup >= 10, paste0(fmt(d$speedup, 0), "x"), paste0(fmt(d$speedup, 2), "x"))
  p <- ggplot(d, aes(x = kernel, y = speedup, fill = variant)) +
    geom_col(position = position_dodge(width = 0.8), width = 0.75, na.rm = TRUE) +
    geom_text(aes(label = label, hjust = ifelse(speedup >= 1, -0.15, 1.15)), position = position_dodge(width = 0.8),
      size = if (bars > 2) 2.6 else 3.1, colour = "grey20", na.rm = TRUE) +
    geom_hline(yintercept = 1, colour = "grey20", linetype = "dashed") +
    scale_y_log10(breaks = c(0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300), labels = function(x) paste0(x, "x"),
      expand = expansion(mult = c(0.1, 0.12))) +
    scale_fill_manual(values = setNames(c("#d7301f", "#fdae6b", "#1b6ca8", "#9ecae1")[seq_along(variants)], unname(variants)),
      breaks = unname(variants)) +
    coord_flip() +
    labs(title = if (is.null(pe)) "When the GPU pays: GPU sections against cpu-par" else "When the GPU pays: GPU sections against cpu-par, and the peers' kernels",
      subtitle = sprintf("cpu-par time (%s threads) / GPU time, each bench kernel at the bench's size\nright of the dashed line the GPU is faster; log scale",
        paste(cpu_threads, collapse = ", ")),
      x = NULL, y = "speedup over cpu-par (log scale)", fill = NULL,
      caption = paste0(if (length(gpu_name)) paste0("GPU: ", gpu_name, "; CPU: "), caption_of(gpu),
        if (!is.null(pe)) paste0("\npeers (bench/peers/gpu_peers.py): ", caption_of(pe)))) +
    theme_report + guides(fill = guide_legend(nrow = bars, byrow = TRUE))
  made$gpu <- save(p, "gpu.png", height = if (bars > 2) 7.5 else 5.2)
  tot <- order$speedup
  names(tot) <- order$kernel
  kern <- setNames(d$speedup[d$variant == variants[["gpu-kernels"]]], as.character(d$kernel[d$variant == variants[["gpu-kernels"]]]))
  kern <- kern[is.finite(kern)]  # (the empty slots added for the peers' bars are NA)
  kt <- vapply(ks, function(k) at(gpu, k, "gpu-kernels"), 0)
  share <- vapply(ks, function(k) at(gpu, k, "gpu-transfers") / at(gpu, k, "gpu-total"), 0)
  wins <- names(tot)[tot > 1]
  notes$gpu <- paste0(
    sprintf("With transfers the GPU section is faster than %s-thread cpu-par for %s; ", paste(cpu_threads, collapse = ", "),
      if (length(wins)) paste(sprintf("%s (%sx)", wins, fmt(tot[wins])), collapse = ", ") else "no kernel"),
    sprintf("counting only its kernels it would be for %d of %d. ", sum(kern > 1), length(kern)),
    if (any(kern > 30)) sprintf("Transfers are %s%% to %s%% of the section's time where the kernel is element-wise (%s), the rest set-up, launch and waiting outside the device's own timings: such a kernel takes %s to %s microseconds at these sizes, but moving its arrays and starting it costs more than %s threads take to compute them.",
      fmt(100 * min(share[names(share) %in% names(kern)[kern > 30]]), 0), fmt(100 * max(share[names(share) %in% names(kern)[kern > 30]]), 0),
      paste(names(kern)[kern > 30], collapse = ", "),
      fmt(1e6 * min(kt[names(kern)[kern > 30]]), 0), fmt(1e6 * max(kt[names(kern)[kern > 30]]), 0), paste(cpu_threads, collapse = ", ")) else "",
    why("gpu", names(kern)[kern < 1]),
    if (!is.null(pe) && any(grepl("^numba-cuda-", pe$config))) {
      nb <- pe[grepl("^numba-cuda-", pe$config), ]
      ratio <- setNames(vapply(nb$kernel, function(k) at(gpu, k, "gpu-kernels"), 0) / nb$median_s, nb$kernel)
      ratio <- sort(ratio[is.finite(ratio)])
      cu <- pe[grepl("^cupy-", pe$config), ]
      cratio <- setNames(vapply(cu$kernel, function(k) at(gpu, k, "gpu-kernels"), 0) / cu$median_s, cu$kernel)
      cratio <- sort(cratio[is.finite(cratio)])
      paste0(
        sprintf(" Against the peers on the same GPU (the same inputs and sizes, each checked against a NumPy reference): our kernels take %s of numba-cuda's kernel time for the same loops (%s)",
          if (length(ratio) > 1) sprintf("%sx to %sx", fmt(min(ratio)), fmt(max(ratio))) else sprintf("%sx", fmt(ratio)),
          paste(sprintf("%s %sx", names(ratio), fmt(ratio)), collapse = ", ")),
        if (length(cratio)) sprintf(" and %s of CuPy's (%s)", if (length(cratio) > 1) sprintf("%sx to %sx", fmt(min(cratio)), fmt(max(cratio))) else sprintf("%sx", fmt(cratio)),
          paste(sprintf("%s %sx", names(cratio), fmt(cratio)), collapse = ", ")) else "",
        sprintf("; above 1x ours is slower. The peers' times exclude transfers, like the light orange bars, and are %s; peers-gpu.csv has their times with transfers too.",
          if (timing == "device") "the device's time between CUDA events around the launches, as ours are OpenCL's profiling stamps" else "host-timed launches and synchronize, which include launch latency that ours (OpenCL's profiling stamps) do not"))
    } else "")
} else {
  notes$gpu <- if (no_device) "The GPU rows of these runs ran on the CPU (no OpenCL device): chart (d) is not drawn." else
    "No vr-bench-gpu.csv in these runs (`vr-bench --gpu` needs an OpenCL GPU): chart (d) is not drawn."
}

# (f) The Julia front end (vr-bench-julia.csv): each kernel written in Julia and compiled
# through it, against the hand-written VRIR kernel on the same backends and against C.
if (!is.null(jl) && any(jl$config == "julia-cpu")) {
  ks <- unique(jl$kernel[jl$config == "julia-cpu"])
  par_threads <- unique(jl$threads[jl$config == "julia-par"])
  variants <- c("vrir-cpu" = "hand-written VRIR, cpu", "julia-cpu" = "Julia source, cpu",
    "vrir-par" = sprintf("hand-written VRIR, cpu-par (%s threads)", paste(par_threads, collapse = ", ")),
    "julia-par" = sprintf("Julia source, cpu-par (%s threads)", paste(par_threads, collapse = ", ")))
  d <- do.call(rbind, lapply(ks, function(k) data.frame(kernel = k, variant = unname(variants),
    ratio = vapply(names(variants), function(cfg) at(jl, k, cfg) / at(jl, k, "c"), 0))))
  d <- d[is.finite(d$ratio), ]
  d$variant <- factor(d$variant, levels = unname(variants))
  p <- ggplot(d, aes(x = kernel, y = ratio, fill = variant)) +
    geom_col(position = position_dodge(width = 0.85), width = 0.8) +
    geom_hline(yintercept = 1, colour = "grey20", linetype = "dashed") +
    scale_y_log10(breaks = c(0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000), labels = function(x) paste0(x, "x")) +
    scale_fill_manual(values = setNames(c("#9ecae1", "#1b6ca8", "#fdae6b", "#d7301f"), unname(variants))) +
    labs(title = "The Julia front end against hand-written VRIR and C, per kernel",
      subtitle = "time / time of the serial C reference (gcc -O2 -march=native); log scale\n1x = C's speed; lower is faster",
      x = NULL, y = "time / serial C time (log scale)", fill = NULL, caption = caption_of(jl)) +
    theme_report + theme(axis.text.x = element_text(angle = 30, hjust = 1)) +
    guides(fill = guide_legend(ncol = 2))
  made$julia <- save(p, "julia.png", height = 5.5)
  jv <- setNames(vapply(ks, function(k) at(jl, k, "julia-cpu") / at(jl, k, "vrir-cpu"), 0), ks)
  jp <- setNames(vapply(ks, function(k) at(jl, k, "julia-par") / at(jl, k, "vrir-par"), 0), ks)
  jc <- vapply(ks, function(k) at(jl, k, "julia-compile"), 0)
  notes$julia <- sprintf("The Julia kernels take %sx to %sx of the hand-written VRIR kernels' time serially (median %sx) and %sx to %sx on cpu-par (median %sx); front end, optimizer and LLVM together take %s to %s ms a kernel (median %s ms).",
    fmt(min(jv)), fmt(max(jv)), fmt(median(jv)), fmt(min(jp)), fmt(max(jp)), fmt(median(jp)),
    fmt(1e3 * min(jc), 0), fmt(1e3 * max(jc), 0), fmt(1e3 * median(jc), 0))
} else {
  notes$julia <- "No vr-bench-julia.csv in these runs (`vr-bench-julia --out RUN_DIR` writes one): the Julia chart is not drawn."
}

# (e) Compile latency, as a distribution of single compiles: each point is one compile
# of one kernel's module, VRIR or R text in, callable out. In process and cold
# (vr-bench-compile.csv: one row per compile, the process's first, which also
# initialises LLVM, apart), and through the C API in a new process each, without the
# disk cache, with an empty one and with a warm one (cache.csv: one row per kernel and
# repetition). A run without vr-bench-compile.csv falls back to vr-bench's compile column
# (one median per kernel).
lat <- NULL
lat_rows <- function(d, mode) data.frame(kernel = d$kernel, mode = mode, seconds = d$median_s,
  machine = d$machine, date = d$date, commit = d$commit)
if (!is.null(comp)) {
  comp_labels <- c("vrir-cpu" = "in process, cold: VRIR -> cpu",
    "vrir-par" = "in process, cold: VRIR -> optimizer -> cpu-par",
    "r-par" = "in process, cold: R -> optimizer -> cpu-par (as vr_compile)")
  for (cfg in intersect(names(comp_labels), comp$config)) lat <- rbind(lat, lat_rows(comp[comp$config == cfg, ], comp_labels[[cfg]]))
} else if (!is.null(vr) && any(vr$config == "compile")) {
  lat <- lat_rows(vr[vr$config == "compile", ], "in process, cold (vr-bench, median per kernel)")
}
if (!is.null(cache)) {
  labels <- c("no-disk-cache" = "C API process, no disk cache", "first-process" = "C API process, empty disk cache (compile + store)",
    "disk-hit" = "C API process, warm disk cache (load)")
  for (cfg in intersect(names(labels), cache$config)) lat <- rbind(lat, lat_rows(cache[cache$config == cfg, ], labels[[cfg]]))
}
if (!is.null(lat)) {
  lat$mode <- factor(lat$mode, levels = rev(unique(lat$mode)))
  counts <- table(lat$mode)
  p <- ggplot(lat, aes(x = mode, y = seconds * 1e3)) +
    geom_violin(fill = "#deebf7", colour = NA, scale = "width", width = 0.8) +
    geom_boxplot(outlier.shape = NA, fill = NA, colour = "#1b6ca8", width = 0.3) +
    geom_point(aes(colour = machine), position = position_jitter(width = 0.12, height = 0, seed = 1), size = 1.2, alpha = 0.7) +
    scale_x_discrete(labels = function(x) sprintf("%s\n(n = %d)", x, as.integer(counts[x]))) +
    scale_y_log10(breaks = scales::breaks_log(8), labels = function(x) format(x, big.mark = ",", scientific = FALSE, trim = TRUE, drop0trailing = TRUE),
      expand = expansion(mult = c(0.04, 0.08))) +
    scale_colour_manual(values = c("#08306b", "#d7301f", "#31a354", "#756bb1")) +
    coord_flip() +
    labs(title = "Compile latency: the distribution of single compiles",
      subtitle = paste0("each point one compile of all functions of a kernel's module, text in to callable out",
        if (is.null(comp) && any(grepl("median per kernel", lat$mode))) "\nvr-bench's points: each a kernel's median of its compiles" else "",
        "\nbox: quartiles and median; shaded: density"),
      x = NULL, y = "ms, text in to callable out (log scale)", colour = NULL, caption = caption_of(lat)) +
    theme_report + guides(colour = if (length(unique(lat$machine)) > 1) guide_legend(ncol = 1) else "none")
  made$latency <- save(p, "compile-latency.png", width = 9, height = 1.6 + 0.75 * length(counts))
  med <- tapply(lat$seconds, lat$mode, median) * 1e3
  q90 <- tapply(lat$seconds, lat$mode, quantile, 0.9) * 1e3
  where <- tapply(lat$machine, lat$mode, function(m) paste(unique(m), collapse = ", "))
  med <- med[rev(names(med))]
  first <- if (!is.null(comp)) comp$median_s[comp$config == "process-first"] else numeric()
  notes$latency <- paste0(paste(sprintf("%s: median %s ms, 90th percentile %s ms (%d points; %s)", names(med), fmt(med, 1),
      fmt(q90[names(med)], 1), as.integer(counts[names(med)]), where[names(med)]), collapse = "; "), ".",
    if (length(first)) sprintf(" The process's first compile, which also initialises LLVM, took %s ms and is not drawn.", fmt(1e3 * first[1], 1)) else "",
    if (all(c("first-process", "disk-hit") %in% cache$config)) {
      hit <- med[[labels[["disk-hit"]]]]
      sprintf(" A process that finds a kernel in the disk cache is ready %sx sooner than one that compiles it (medians, same machine): the machine code is loaded and linked, LLVM does not run. Compare figures only within one machine: where the modes ran on different machines (the legend), the cold figures differ by the machine and its load as much as by the mode.",
        fmt(med[[labels[["first-process"]]]] / hit, 0))
    } else "")
}

# The page.
# A chart's path as the page links it: relative to the page's folder where the charts are
# under it (bench/report/ from bench/REPORT.md), else absolute.
rel <- function(path) {
  page_dir <- normalizePath(dirname(report_file), mustWork = FALSE)
  chart <- normalizePath(path, mustWork = FALSE)
  if (startsWith(chart, paste0(page_dir, "/"))) substring(chart, nchar(page_dir) + 2) else chart
}
section <- function(title, key, text) {
  if (is.null(made[[key]])) return(c(paste("##", title), "", if (!is.null(notes[[key]])) notes[[key]] else "No data in these runs.", ""))
  c(paste("##", title), "", sprintf("![%s](%s)", title, rel(made[[key]])), "", text, if (!is.null(notes[[key]])) notes[[key]], "",
    sprintf("Measured on: %s.", captions[[basename(made[[key]])]]), "")
}
# What a run's folder says about itself (notes.md: how the machine was, what to discount).
run_notes <- unlist(lapply(runs, function(r) {
  f <- file.path(r, "notes.md")
  if (file.exists(f)) c(sprintf("About `%s`: %s", r, paste(readLines(f), collapse = " ")), "")
}))
page <- c(
  "# Benchmark report",
  "",
  sprintf("Made by `bench/report/report.R` from: %s. Regenerate with `bash scripts/bench.sh --report` (a new local run) or `Rscript bench/report/report.R RUN_DIR...` (given runs). Every number is a median of repeated runs; tables with every configuration are in bench/RESULTS.md.",
    paste(sprintf("`%s`", runs), collapse = ", ")),
  "",
  run_notes,
  section(sprintf("%s code compiled with vr_compile()", paste(c(if (is.null(oct) || !is.null(rb)) "R", if (!is.null(oct)) "Octave"), collapse = " and ")), "r_speedup",
    paste(c(if (!is.null(rb)) "Each kernel of bench/r is an R function with loops, timed in R (byte-compiled) and through `vr_compile()`; the parallel variant marks its outer loop with `prange()`.",
      if (!is.null(rrand)) "mc_pi, walk_max, vector_draws and dice (bench/r/random.R) draw from R's random stream in their loops, the compiled code through R's own generator.",
      if (!is.null(rarr)) "The (array style) rows are R's vectorized versions of the kernels (bench/r/array_style.R), in R and compiled.",
      if (!is.null(oct)) "Each kernel of bench/octave is a MATLAB function (McLab's benchmarks), timed in Octave's interpreter and through Octave's `vr_compile()`."), collapse = " ")),
  section("Against C", "vs_c",
    "The benchmark kernels in VRIR, compiled by the cpu backend, against their C references (bench/c, the same loops): serially with bounds checks as the front end emits them, after the optimizer (which removes or versions them), and with checks off; the purple bars are cpu-par against C + OpenMP on every core, the orange ones the R versions through `vr_compile()` against the same C on the R benchmark's machine."),
  section("Scaling with threads", "scaling",
    "cpu-par runs each parfor on a rayon pool; the C references run the same loop under `#pragma omp parallel for` (gcc's libgomp, default schedule). What limits each kernel is discussed in bench/RESULTS.md."),
  section("GPU", "gpu",
    "`vr-bench --gpu` runs each bench kernel's parallel loop in one GPU section (OpenCL) and times the whole section (uploads, launch, kernel, downloads) and, from the device's own timings, its kernels and its transfers; cpu-par is the same kernel on every core of the host."),
  section("The Julia front end", "julia",
    "`vr-bench-julia` compiles each bench kernel written in Julia (bench/julia, 1-based, column-major, `Threads.@threads` where the VRIR kernel has a parfor) through the Julia front end and runs it next to the hand-written VRIR kernel (bench/kernels) and the C reference; every result equals C's (1e-12) before it is timed."),
  section("Compile latency", "latency",
    paste0("What the first call costs: compiling a module in process (", if (!is.null(comp)) "`vr-bench-compile`: the VRIR kernels and the R kernels as `vr_compile()` compiles them" else "vr-bench's compile column, a median per kernel: these runs have no vr-bench-compile.csv", "), and through the C API in a new process each (`scripts/bench_cache.sh`) with the on-disk machine-code cache off, empty and warm (a process that finds the kernel loads machine code instead of compiling).")),
  NULL)
writeLines(page, report_file)
cat(sprintf("report: %d charts in %s, page %s\n", length(made), charts_dir, report_file))
