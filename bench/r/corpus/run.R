# The R corpus measurement (issue 14, "Targets"): how much of real R benchmark code, as
# written, runs with its loops compiled. For each program of bench/r/corpus/ it runs the
# entry function in R, then as vr_compile(f, fallback = FALSE) and as vr_compile(f) (the
# default, fallback = TRUE), and records
#   - status: `whole` (compiles with fallback = FALSE), `sections` (the default wrapper
#     ran some of it compiled: vr_explain() reports outlined sections, or callees R
#     called through their compiled wrappers, that ran compiled), `fallback` (it ran
#     in R, naming the construct), `error` (a compiled run raised where R did not),
#     `wrong` (a result differing from R's: never acceptable), `r_error` (the program
#     itself fails in R: a corpus bug);
#   - the construct, function and line named by the fallback (or fallback = FALSE error);
#   - whether the value is identical() to R's or all.equal() to it (tolerance 1e-12),
#     and whether the printed output is the same;
#   - R's and the compiled wrapper's median times, and the first call's time (compile).
# It prints a table and a summary (percentage compiled, construct ranking) and writes one
# CSV row per program. Each program runs in its own Rscript process (a crash, or a
# program's globals and options, cannot touch the others).
#
#   R_LIBS=$PWD/.rlib Rscript bench/r/corpus/run.R [--quick] [--csv FILE] [NAME ...]
#
# --quick: one run each, no timing (a check that the harness and the programs work);
# NAME: program names (file names without .R) to run, default all. The CSV goes to
# bench/r/corpus/results.csv (not in --quick mode unless --csv is given).
#
# A program is an R file with one line `# corpus-call: entry(arg, ...)`: the arguments are
# evaluated once in the program's environment after set.seed(1) (so `run(setup("60"))`
# calls setup() there), then every run restores the program's top-level variables and
# options, calls set.seed(2) and calls the entry with those values. The file is sourced
# with keep.source = TRUE and `harness_argc` defined (the rbenchmark convention that
# skips the file's own driver block), so line numbers are the file's.

corpus_args <- commandArgs(trailingOnly = TRUE)
corpus_file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
corpus_dir <- if (length(corpus_file_arg)) {
  dirname(normalizePath(sub("^--file=", "", corpus_file_arg[1])))
} else {
  "bench/r/corpus"
}

corpus_opt <- function(flag) {
  k <- match(flag, corpus_args)
  if (is.na(k) || k == length(corpus_args)) return(NULL)
  corpus_args[k + 1]
}

corpus_now <- function() as.numeric(Sys.time())

# The `# corpus-call:` line of a program, parsed.
corpus_call <- function(path) {
  lines <- readLines(path, warn = FALSE)
  hit <- grep("^#\\s*corpus-call:", lines, value = TRUE)
  if (length(hit) != 1L) stop(path, ": needs exactly one `# corpus-call: entry(...)` line")
  e <- str2lang(sub("^#\\s*corpus-call:\\s*", "", hit))
  if (!is.call(e) || !is.name(e[[1]])) stop(path, ": the corpus-call must call a function by name")
  e
}

# The kind of a construct, for the ranking: what a user would have to change (or what
# the compiler would have to learn). Keyed on the construct part of the message
# ("<construct> (line N): <reason>"), with the reason as a second chance.
corpus_category <- function(construct, message) {
  text <- paste(construct, message)
  fn <- regmatches(construct, regexpr("`[^`]+`", construct))
  fn <- if (length(fn)) gsub("`", "", fn) else ""
  call_of <- function(names) grepl("^call to `", construct) && fn %in% names
  side <- c("cat", "print", "message", "options", "Sys.time", "gc", "invisible", "format",
    "sprintf", "paste", "paste0", "writeLines", "flush", "system.time", "stopifnot")
  rng <- c("runif", "rnorm", "rgamma", "rbinom", "rbeta", "rexp", "rpois", "sample",
    "set.seed")
  functional <- c("sapply", "vapply", "lapply", "Map", "Reduce", "Filter", "mapply",
    "apply", "outer", "Recall", "do.call", "replicate", "Vectorize")
  if (call_of(side)) return("side-effect call (cat, print, options, ...)")
  if (call_of(rng)) return("random numbers (runif, rnorm, sample, ...)")
  if (call_of(functional) || grepl("^function `[^`]+` used as a value|call of a computed function|call of variable", construct)) {
    return("functions as values (sapply, lapply, Recall, ...)")
  }
  if (grepl("function definition inside a function|closure", text)) return("function defined inside a function")
  if (grepl("<<-", text, fixed = TRUE)) return("`<<-` (superassignment)")
  if (call_of("list") || grepl("VECSXP|\\blist|`\\$`|\\$", text)) return("lists (list arguments, list(), $, [[ ]])")
  if (grepl("^string|STRSXP|character", text)) return("strings")
  if (grepl("free variable|global|not a constant", text)) return("globals (free variables)")
  if (grepl("indexing a scalar", construct)) return("length-one vector indexed (scalar specialisation)")
  if (grepl("^assignment used as a value", construct)) return("chained assignment (a <- b <- v)")
  if (grepl("^NULL|^`c\\(\\)`", construct)) return("growth from NULL / empty c()")
  if (grepl("out of bounds|beyond|negative|zero index", text)) return("indices outside the vector (negative, zero, growth)")
  if (call_of(c("vector", "matrix", "array")) || grepl("without data", construct)) {
    return("allocation filled later (vector(), matrix(nrow, ncol))")
  }
  if (grepl("named element|names", construct)) return("names (c(a = ...), names())")
  if (grepl("^argument `[^`]+ =` of", construct)) return("argument matching of builtins")
  if (grepl("`NA|NA`|logical NA", text)) return("NA values")
  if (grepl("^call to `", construct)) return("builtins not compiled (which, bitwAnd, ...)")
  if (nzchar(construct)) return(construct)
  "(no construct named)"
}

# Splits "construct (line N): reason" (the front end's message shape).
corpus_construct <- function(message) {
  m <- sub("^velociraptor: [^ ]+ cannot be compiled: ", "", message)
  m <- sub("; it runs in R$", "", m)
  m <- sub("^velociraptor: ", "", m)
  # "unsupported in run (line 2): " names the kind and the place; the construct follows.
  m <- sub("^[a-z ]+ in [^ ]+( \\(line [0-9]+\\))?: ", "", m)
  construct <- if (grepl(" \\(line [0-9]+\\)", m)) sub(" \\(line [0-9]+\\).*$", "", m) else sub(": .*$", "", m)
  construct <- sub(" \\(in [^)]*\\)$", "", construct)
  list(construct = construct, text = m)
}

# A static scan, for the second ranking: the construct kinds a program's code contains
# anywhere (the entry and the functions of the program it calls by name, transitively),
# not only the first one the compiler met. Only kinds a scan can see are listed.
corpus_scan <- function(entry, env) {
  side <- c("cat", "print", "message", "options", "Sys.time", "gc", "format", "sprintf",
    "paste", "paste0", "writeLines")
  rng <- c("runif", "rnorm", "rgamma", "rbinom", "rbeta", "rexp", "rpois", "sample")
  functional <- c("sapply", "vapply", "lapply", "Map", "Reduce", "Filter", "mapply", "apply",
    "outer", "Recall", "do.call", "replicate", "Vectorize")
  seen <- character()
  heads <- character()
  visit <- function(nm) {
    seen <<- c(seen, nm)
    body_calls <- function(e) {
      if (!is.call(e)) return(character())
      h <- if (is.name(e[[1]])) as.character(e[[1]]) else character()
      c(h, unlist(lapply(as.list(e)[-1], body_calls)))
    }
    calls <- body_calls(body(get(nm, envir = env)))
    heads <<- c(heads, calls)
    for (g in unique(calls)) {
      if (!(g %in% seen) && exists(g, envir = env, inherits = FALSE) && is.function(get(g, envir = env))) visit(g)
    }
  }
  visit(entry)
  kinds <- c(
    if (any(heads %in% side)) "side-effect call (cat, print, options, ...)",
    if (any(heads %in% rng)) "random numbers (runif, rnorm, sample, ...)",
    if (any(heads %in% functional)) "functions as values (sapply, lapply, Recall, ...)",
    if ("function" %in% heads) "function defined inside a function",
    if ("<<-" %in% heads) "`<<-` (superassignment)",
    if (any(heads %in% c("list", "$"))) "lists (list arguments, list(), $, [[ ]])")
  paste(kinds, collapse = "; ")
}

# How many outlined sections vr_explain() reports, read defensively: the report of
# compiled sections is new (issue 14), so any field of a specialization whose name
# mentions sections or outlining counts (a count, or one element per section), and
# failing that a line of the printed report such as "2 sections" or "1 outlined section".
corpus_sections <- function(specs, text = character()) {
  n <- 0L
  for (s in specs) {
    if (!is.list(s)) next
    # Functions of the program that R statements called through their own compiled
    # wrappers (callees.R): each counts as a section where it ran compiled, whole or
    # in sections of its own.
    for (cs in s$callees) {
      # calls of its compiled specializations, less those R ran instead (calls_in_r:
      # per function, on every specialization)
      ran <- sum(vapply(cs, function(c) if (isTRUE(c$compiled)) as.numeric(c$calls) else 0, 0))
      in_r <- if (length(cs) && !is.null(cs[[1]]$calls_in_r)) cs[[1]]$calls_in_r else 0
      n <- n + as.integer(ran > in_r)
      n <- n + corpus_sections(cs)
    }
    for (nm in setdiff(names(s), "callees")) {
      if (!grepl("section|outlin", nm, ignore.case = TRUE)) next
      v <- s[[nm]]
      if (is.null(v) || (is.logical(v) && !any(v, na.rm = TRUE))) next
      if (is.list(v) && length(v) && all(vapply(v, function(e) is.list(e) && !is.null(e$compiled), logical(1)))) {
        # one entry per section, saying whether it ran compiled: count those that did
        n <- n + sum(vapply(v, function(e) isTRUE(e$compiled), logical(1)))
      } else {
        n <- n + if (is.numeric(v) && length(v) == 1L) as.integer(v) else length(v)
      }
    }
  }
  if (n == 0L && length(text)) {
    hits <- regmatches(text, regexpr("[0-9]+ (compiled |outlined )?sections?", text, ignore.case = TRUE))
    if (length(hits)) n <- sum(as.integer(sub(" .*", "", hits)))
  }
  n
}

# ---------------------------------------------------------------------------------
# The child: one program, results to an RDS file.

corpus_child <- function(name, out, quick) {
  suppressPackageStartupMessages(library(velociraptor))
  path <- file.path(corpus_dir, paste0(name, ".R"))
  call <- corpus_call(path)
  entry <- as.character(call[[1]])
  env <- new.env(parent = globalenv())
  assign("harness_argc", 0L, envir = env)
  sys.source(path, envir = env, keep.source = TRUE)
  if (!exists(entry, envir = env, inherits = FALSE) || !is.function(get(entry, envir = env))) {
    stop(name, ": no function `", entry, "`")
  }
  set.seed(1)
  args <- lapply(as.list(call)[-1], function(a) eval(a, env))
  names(args) <- names(as.list(call)[-1])

  # The program's state: top-level non-function values and R's options, restored before
  # every run (programs that advance globals with <<- or set options() stay comparable).
  is_fun <- vapply(ls(env, all.names = TRUE), function(nm) is.function(get(nm, envir = env)), logical(1))
  state_names <- names(is_fun)[!is_fun]
  state <- mget(state_names, envir = env)
  opts <- options()
  restore <- function() {
    extra <- setdiff(ls(env, all.names = TRUE), names(is_fun))
    if (length(extra)) rm(list = extra, envir = env)
    for (nm in state_names) assign(nm, state[[nm]], envir = env)
    options(opts)
  }

  # One checked run: value, printed output, warnings (fallbacks apart), error.
  run_once <- function(f) {
    restore()
    set.seed(2)
    fallbacks <- list()
    warns <- character()
    err <- NULL
    value <- NULL
    t0 <- corpus_now()
    output <- utils::capture.output({
      value <- tryCatch(
        withCallingHandlers(do.call(f, args),
          velociraptor_fallback = function(w) {
            fallbacks[[length(fallbacks) + 1L]] <<- w
            invokeRestart("muffleWarning")
          },
          warning = function(w) {
            warns <<- c(warns, conditionMessage(w))
            invokeRestart("muffleWarning")
          }),
        error = function(e) {
          err <<- e
          NULL
        })
    })
    t1 <- corpus_now()
    restore()
    list(value = value, output = output, fallbacks = fallbacks, warnings = warns,
      error = err, seconds = t1 - t0)
  }

  # Median seconds of `reps` runs, output to the null device.
  time_runs <- function(f, reps) {
    times <- numeric(reps)
    for (k in seq_len(reps)) {
      restore()
      set.seed(2)
      sink(nullfile())
      t0 <- corpus_now()
      try(suppressWarnings(do.call(f, args)), silent = TRUE)
      times[k] <- corpus_now() - t0
      sink()
    }
    restore()
    stats::median(times)
  }

  compile_entry <- function(fallback) {
    # Called by name in the program's environment, so that vr_compile() names the
    # function as the program does and finds its helpers and constants there.
    eval(bquote(velociraptor::vr_compile(.(as.name(entry)), fallback = .(fallback))), env)
  }

  # Where a condition points: function, line in it, line in the file.
  where <- function(cond) {
    fun <- cond$fun
    line <- cond$line
    file_line <- NA_integer_
    if (!is.null(fun) && !is.null(line) && exists(fun, envir = env, inherits = FALSE)) {
      sr <- attr(get(fun, envir = env), "srcref")
      if (!is.null(sr)) file_line <- as.integer(sr[[1]] + line - 1L)
    }
    list(fun = if (is.null(fun)) NA_character_ else fun,
      line = if (is.null(line)) NA_integer_ else as.integer(line),
      file_line = file_line)
  }

  res <- list(name = name, entry = entry, call = paste(deparse(call), collapse = " "),
    contains = corpus_scan(entry, env))
  f <- get(entry, envir = env)

  # R itself: a first run (R's JIT compiles the closure on its first calls), the reference.
  r_ref <- run_once(f)
  if (!is.null(r_ref$error)) {
    res$status <- "r_error"
    res$message <- conditionMessage(r_ref$error)
    saveRDS(res, out)
    return(invisible())
  }
  r_ref <- run_once(f)

  # The default wrapper first (its first call compiles: no on-disk cache, so that the
  # time is the compiler's), then the checked run.
  velociraptor::vr_options(cache_dir = "")
  g <- compile_entry(TRUE)
  first <- run_once(g)
  res$first_call_s <- first$seconds
  checked <- run_once(g)
  fb <- c(first$fallbacks, checked$fallbacks)
  res$fallback_message <- if (length(fb)) conditionMessage(fb[[1]]) else NA_character_
  res$default_error <- if (is.null(checked$error)) NA_character_ else conditionMessage(checked$error)

  # fallback = FALSE: compiles whole, or the first construct it cannot compile.
  strict <- tryCatch(compile_entry(FALSE), error = function(e) e)
  strict_run <- if (inherits(strict, "error")) list(error = strict) else run_once(strict)
  res$strict_error_class <- if (is.null(strict_run$error)) NA_character_ else class(strict_run$error)[1]
  res$strict_message <- if (is.null(strict_run$error)) NA_character_ else conditionMessage(strict_run$error)

  # Sections: whatever vr_explain() says about outlined code.
  explain_text <- character()
  specs <- tryCatch({
    explain_text <- utils::capture.output(s <- velociraptor::vr_explain(g, vrir = FALSE))
    s
  }, error = function(e) list())
  n_sections <- corpus_sections(specs, explain_text)
  res$sections <- n_sections
  res$compiled_specs <- sum(vapply(specs, function(s) isTRUE(s$compiled), logical(1)))

  # Equality with R.
  equal <- if (!is.null(checked$error)) {
    "error"
  } else if (identical(checked$value, r_ref$value)) {
    "identical"
  } else if (isTRUE(all.equal(checked$value, r_ref$value, tolerance = 1e-12))) {
    "all.equal"
  } else {
    "DIFFERENT"
  }
  res$equal <- equal
  res$output_equal <- identical(checked$output, r_ref$output)
  strict_equal <- is.null(strict_run$error) &&
    (identical(strict_run$value, r_ref$value) ||
     isTRUE(all.equal(strict_run$value, r_ref$value, tolerance = 1e-12)))

  # Status.
  res$status <- if (equal == "DIFFERENT" || (is.null(strict_run$error) && !strict_equal)) {
    "wrong"
  } else if (equal == "error") {
    "error"
  } else if (is.null(strict_run$error)) {
    "whole"
  } else if (n_sections > 0L) {
    "sections"
  } else {
    "fallback"
  }

  # The construct: the fallback's message as the user saw it, else fallback = FALSE's.
  cond <- if (length(fb)) fb[[1]] else if (!is.null(strict_run$error)) strict_run$error else NULL
  if (res$status != "whole" && !is.null(cond)) {
    msg <- conditionMessage(cond)
    parts <- corpus_construct(msg)
    if (!inherits(cond, c("velociraptor_fallback", "velociraptor_unsupported"))) {
      # a run-time error (status `error`): its kind and place are the construct
      parts$construct <- sub(" \\(line [0-9]+\\).*$", "", sub("^velociraptor: ", "", msg))
    }
    res$message <- parts$text
    res$construct <- parts$construct
    res$category <- corpus_category(parts$construct, parts$text)
    w <- where(cond)
    res$fun <- w$fun
    res$line <- w$line
    res$file_line <- w$file_line
  } else if (res$status == "error") {
    res$message <- res$default_error
  }

  # Times.
  if (quick) {
    res$r_median_s <- NA_real_
    res$vr_median_s <- NA_real_
    res$reps <- 0L
  } else {
    reps <- as.integer(max(3, min(11, floor(1.5 / max(r_ref$seconds, 1e-3)))))
    if (reps %% 2 == 0) reps <- reps + 1L
    res$reps <- reps
    res$r_median_s <- time_runs(f, reps)
    res$vr_median_s <- if (is.null(checked$error)) time_runs(g, reps) else NA_real_
  }
  saveRDS(res, out)
  invisible()
}

# ---------------------------------------------------------------------------------
# The parent: every program in its own process, then the table, summary and CSV.

corpus_field <- function(r, nm, default = NA) if (is.null(r[[nm]])) default else r[[nm]]

corpus_main <- function() {
  quick <- "--quick" %in% corpus_args
  csv <- corpus_opt("--csv")
  if (is.null(csv) && !quick) csv <- file.path(corpus_dir, "results.csv")
  skip <- c(corpus_opt("--csv"))
  wanted <- setdiff(corpus_args[!startsWith(corpus_args, "--")], skip)
  all <- sub("\\.R$", "", list.files(corpus_dir, pattern = "\\.R$"))
  all <- setdiff(all, "run")
  if (length(wanted)) {
    unknown <- setdiff(wanted, all)
    if (length(unknown)) stop("no such program in ", corpus_dir, ": ", paste(unknown, collapse = ", "))
    all <- wanted
  }
  if (!requireNamespace("velociraptor", quietly = TRUE)) {
    stop("the velociraptor package is not installed in .libPaths() (set R_LIBS)")
  }
  rscript <- file.path(R.home("bin"), "Rscript")
  script <- file.path(corpus_dir, "run.R")
  commit <- tryCatch(system2("git", c("-C", shQuote(corpus_dir), "rev-parse", "--short", "HEAD"),
    stdout = TRUE, stderr = FALSE)[1], error = function(e) NA_character_, warning = function(w) NA_character_)
  date <- format(Sys.Date())

  results <- list()
  for (name in all) {
    out <- tempfile(fileext = ".rds")
    log <- tempfile(fileext = ".log")
    cat(sprintf("%-22s ", name))
    t0 <- corpus_now()
    rc <- suppressWarnings(system2(rscript, c(shQuote(script), "--child", name, "--out", shQuote(out),
      if (quick) "--quick"), stdout = log, stderr = log, timeout = if (quick) 300 else 900))
    r <- if (file.exists(out)) readRDS(out) else {
      tail_log <- if (file.exists(log)) paste(utils::tail(readLines(log, warn = FALSE), 3), collapse = " | ") else ""
      list(name = name, status = if (identical(rc, 124L)) "timeout" else "crashed",
        message = paste0("exit status ", rc, ": ", tail_log))
    }
    cat(sprintf("%-9s %5.1f s\n", r$status, corpus_now() - t0))
    results[[name]] <- r
  }

  rows <- do.call(rbind, lapply(results, function(r) data.frame(
    program = r$name,
    status = r$status,
    equal = corpus_field(r, "equal"),
    output_equal = corpus_field(r, "output_equal"),
    sections = corpus_field(r, "sections"),
    category = corpus_field(r, "category"),
    contains = corpus_field(r, "contains"),
    construct = corpus_field(r, "construct"),
    fun = corpus_field(r, "fun"),
    line = corpus_field(r, "line"),
    file_line = corpus_field(r, "file_line"),
    r_median_s = corpus_field(r, "r_median_s"),
    vr_median_s = corpus_field(r, "vr_median_s"),
    speedup = corpus_field(r, "r_median_s") / corpus_field(r, "vr_median_s"),
    first_call_s = corpus_field(r, "first_call_s"),
    reps = corpus_field(r, "reps"),
    entry_call = corpus_field(r, "call"),
    message = corpus_field(r, "message"),
    strict_message = corpus_field(r, "strict_message"),
    date = date,
    commit = commit,
    stringsAsFactors = FALSE)))
  rownames(rows) <- NULL

  # The table.
  cat("\n")
  cat(sprintf("%-22s %-9s %-9s %-4s %-46s %-26s %9s %9s %7s\n", "program", "status", "equal",
    "out", "construct (first met)", "where", "R ms", "vr ms", "R/vr"))
  for (i in seq_len(nrow(rows))) {
    x <- rows[i, ]
    where <- if (!is.na(x$fun)) sprintf("%s:%s (L%s)", x$fun, x$line, x$file_line) else ""
    cons <- if (is.na(x$construct)) "" else x$construct
    if (nchar(cons) > 46) cons <- paste0(substr(cons, 1, 43), "...")
    num <- function(v, scale = 1) if (is.na(v)) "-" else sprintf("%.2f", scale * v)
    cat(sprintf("%-22s %-9s %-9s %-4s %-46s %-26s %9s %9s %7s\n", x$program, x$status,
      ifelse(is.na(x$equal), "", x$equal), ifelse(is.na(x$output_equal), "", ifelse(x$output_equal, "yes", "NO")),
      cons, where, num(x$r_median_s, 1e3), num(x$vr_median_s, 1e3), num(x$speedup)))
  }

  # The summary.
  n <- nrow(rows)
  count <- function(s) sum(rows$status == s)
  ok <- rows$status %in% c("whole", "sections") & rows$equal %in% c("identical", "all.equal")
  cat(sprintf("\n%d programs: %d compiled whole, %d with compiled sections, %d fell back to R, %d errors, %d wrong, %d failing in R, %d crashed/timed out\n",
    n, count("whole"), count("sections"), count("fallback"), count("error"), count("wrong"),
    count("r_error"), count("crashed") + count("timeout")))
  cat(sprintf("Loops compiled (whole or sections), results equal to R's: %d of %d = %.0f%%\n",
    sum(ok), n, 100 * sum(ok) / n))
  if (!quick && any(ok)) {
    sp <- rows$speedup[ok]
    cat(sprintf("Speedup of those (R median / compiled median): geometric mean %.1fx, range %.1fx to %.1fx\n",
      exp(mean(log(sp))), min(sp), max(sp)))
  }
  notwhole <- rows[!is.na(rows$category), ]
  if (nrow(notwhole)) {
    cat("\nWhat kept programs from compiling whole (the first construct met), by kind:\n")
    tab <- sort(table(notwhole$category), decreasing = TRUE)
    for (k in names(tab)) {
      progs <- notwhole$program[notwhole$category == k]
      cat(sprintf("  %2d  %-52s %s\n", tab[[k]], k, paste(progs, collapse = ", ")))
    }
    cat("\nBy exact construct:\n")
    tab <- sort(table(notwhole$construct), decreasing = TRUE)
    for (k in names(tab)) cat(sprintf("  %2d  %s\n", tab[[k]], k))
  }
  scanned <- rows$status != "whole" & !is.na(rows$contains) & nzchar(rows$contains)
  if (any(scanned)) {
    cat("\nProgram code not compiling whole that contains each kind anywhere (a static scan; a\nprogram often has several):\n")
    kinds <- unlist(strsplit(rows$contains[scanned], "; ", fixed = TRUE))
    tab <- sort(table(kinds), decreasing = TRUE)
    for (k in names(tab)) cat(sprintf("  %2d  %s\n", tab[[k]], k))
  }
  bad <- rows[rows$status %in% c("wrong", "error", "r_error", "crashed", "timeout"), ]
  if (nrow(bad)) {
    cat("\nNeeds a look:\n")
    for (i in seq_len(nrow(bad))) cat(sprintf("  %s (%s): %s\n", bad$program[i], bad$status[i], bad$message[i]))
  }
  cat(sprintf("\n%s, commit %s, %s\n", date, commit, R.version.string))
  if (!is.null(csv)) {
    utils::write.csv(rows, csv, row.names = FALSE)
    cat("wrote", csv, "\n")
  }
  # A wrong value, an error where R has none, or a broken program fails the run (so that
  # `--quick NAME...` works as a check); falling back does not.
  if (nrow(bad)) quit(status = 1)
  invisible(rows)
}

if ("--child" %in% corpus_args) {
  corpus_child(corpus_opt("--child"), corpus_opt("--out"), "--quick" %in% corpus_args)
} else {
  corpus_main()
}
