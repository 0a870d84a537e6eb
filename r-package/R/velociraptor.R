# The R side of the package: vr_compile() and its wrapper functions, the conditions
# raised for failures the Rust side reports (it never raises R errors itself), options,
# and the prange()/gpu() markers.

.vr <- new.env(parent = emptyenv())

#' Compile a numeric R function to native code
#'
#' `vr_compile(f)` returns a function with the same formals as `f`. Its first call
#' with a given signature of argument types (`typeof`, and rank: a length-one vector
#' without a `dim` attribute is a scalar, any other vector has rank 1, a matrix rank 2,
#' an array `length(dim)`; a list or data frame: its names and its elements'
#' signatures) compiles `f`, and every function it calls by name, for those types;
#' later calls with the same signature go straight to native code. Arguments are
#' passed by value: the caller's objects never change.
#'
#' The R source of `f` (from `deparse()`) and of the closures it calls by name (found
#' from `environment(f)`, transitively) is what gets compiled. The other free variables
#' they read (globals: scalars, vectors, matrices, lists) are read from the environment
#' that binds them at every call, as R reads them: a global changed between calls is
#' seen, and a global whose type changes is part of the signature (a new
#' specialization compiles). The wrapper keeps the source, so it can be saved,
#' serialized and sent to other R processes, where it compiles again on its first call.
#'
#' Lists compile as arguments, values and results: `x$name`, `x[["name"]]`, `x[[k]]`
#' (by a constant, or at run time among elements of one kind), `length(x)`,
#' `list(a = ..., b = ...)` built, changed element by element and returned (the
#' result is R's list, names and nesting included). Lists of records loop by name and
#' by element (`for (nm in names(l))`, `for (b in l)`) and read and assign an element
#' of the `i`-th record (`l[[i]]$x`). A data frame is a read-only list
#' of its columns (`df$x[i]`, `nrow(df)`, `ncol(df)`); a column or element compiled
#' code cannot hold (characters, factors) may be present as long as the function does
#' not read it.
#'
#' @param f An R function (a closure) working on double, integer, logical or complex
#'   vectors, matrices and arrays, and lists and data frames of them.
#' @param fallback What to do when `f` (or a signature of it) cannot be compiled:
#'   `TRUE` runs `f` in R, with one warning of class `velociraptor_fallback` per
#'   function that names the construct and line; `FALSE` raises an error of class
#'   `velociraptor_unsupported`.
#' @return A function with the formals of `f` (class `vr_function`).
#' @details Errors in compiled code (a matrix index out of bounds, non-conforming
#'   shapes) are R errors of class `velociraptor_error` with fields `kind`, `fun`,
#'   `line`, `variable`, `index` and `bound`. Where R has an answer compiled code cannot
#'   give (an `NA` in an integer argument, an integer overflow or division by zero, a
#'   vector read past its end) the call runs in R instead, as a fallback.
#'
#'   Sections: when `f` does not compile whole (a `cat()`, `print()`, `message()`,
#'   `options()` or `Sys.time()` next to its loops) and `fallback = TRUE`, its
#'   sections still do: the runs of statements holding a loop whose every construct
#'   compiles. `f` then runs in R with each section replaced by a call of its own
#'   compiled function, which gets the variables the section reads (by value) and gives
#'   back those it assigns that the rest of `f` uses. A section that cannot compile for
#'   the values it gets (or whose input carries `names`, which compiled code would drop)
#'   runs in R. Errors in a section name `f` and its line. One warning of class
#'   `velociraptor_fallback` names the construct and the lines that ran compiled or in
#'   R; [vr_explain()] shows each section.
#' @seealso [vr_explain()], [vr_options()], [prange()], `vignette("compiling", package = "velociraptor")`.
#' @examples
#' sumsq <- function(x) {
#'   s <- 0
#'   for (i in seq_along(x)) s <- s + x[i]^2
#'   s
#' }
#' g <- vr_compile(sumsq)
#' x <- runif(1000)
#' all.equal(g(x), sumsq(x))
#' @export
vr_compile <- function(f, fallback = TRUE) {
  if (!is.function(f) || is.primitive(f)) {
    stop("vr_compile() needs an R closure, not ", class(f)[1])
  }
  if (!is.logical(fallback) || length(fallback) != 1L || is.na(fallback)) {
    stop("`fallback` must be TRUE or FALSE")
  }
  name <- if (is.name(substitute(f))) as.character(substitute(f)) else "vr_main"
  if (!grepl("^[A-Za-z][A-Za-z0-9_.]*$", name)) name <- "vr_main"
  .vr_make(f, name, fallback)
}

# vr_compile()'s wrapper of `f` under `name`. `family`: the wrappers of the functions of
# one program by name, shared with the wrappers made for its callees (callees.R), so
# that a call back to a function of the family reaches its wrapper.
.vr_make <- function(f, name, fallback, family = new.env(parent = emptyenv())) {
  state <- new.env(parent = emptyenv())
  state$family <- family
  state$plain <- FALSE
  state$f <- f
  state$name <- name
  state$fallback <- fallback
  state$warned <- FALSE
  state$source <- vr_source(f, name)
  state$globals <- attr(state$source, "globals")
  state$ptr <- vr_rs_new(state$source, name, state$globals)
  fmls <- formals(f)
  wrapper <- function() NULL
  formals(wrapper) <- fmls
  if ("..." %in% names(fmls)) {
    # `...` has no type to specialize on: the function always runs in R.
    state$static_failure <- list(phase = "compile", kind = "unsupported",
      message = "a function with `...` among its formals does not compile", "function" = name)
  }
  args <- lapply(setdiff(names(fmls), "..."), as.name)
  # Each global read where it lives, at every call: `<environment>$name`.
  globals <- Map(function(g, holder) as.call(list(`$`, holder, as.name(g))),
    state$globals, attr(state$source, "holders"))
  names(globals) <- NULL
  body(wrapper) <- if ("..." %in% names(fmls) || ".vr_r" %in% names(fmls)) {
    as.call(list(as.name(".vr_invoke"), as.name(".vr_state"),
      as.call(c(list(as.name("list")), args, if ("..." %in% names(fmls)) list(as.name("...")), globals))))
  } else {
    # The hot path, inlined (no further closure calls: each costs R about 0.3 us): the
    # native call, then a failure (a classed list; results never carry a class) goes
    # to .vr_failed. The primitives are placed in the call itself rather than named,
    # which spares R a search through four environments for each (about 0.8 us per
    # call); primitives serialize by name, so the wrapper still travels.
    arglist <- as.call(c(list(list), args, globals))
    as.call(list(`{`,
      as.call(list(`<-`, quote(.vr_r), as.call(list(.Call, quote(vr_rs_call_fast),
        as.call(list(`$`, quote(.vr_state), quote(ptr))), arglist)))),
      as.call(list(`if`, as.call(list(is.object, quote(.vr_r))),
        as.call(c(list(quote(.vr_failed), quote(.vr_state)), list(arglist), list(quote(.vr_r)))),
        quote(.vr_r)))))
  }
  env <- new.env(parent = asNamespace("velociraptor"))
  env$.vr_state <- state
  environment(wrapper) <- env
  class(wrapper) <- c("vr_function", "function")
  if (is.null(family[[name]])) family[[name]] <- wrapper
  wrapper
}

# One call of a compiled function: the Rust side compiles on the first call with these
# argument types, then calls; a failure comes back as a `vr_failure` list.
.vr_invoke <- function(state, args) {
  if (!is.null(state$static_failure)) return(.vr_failed(state, args, state$static_failure))
  r <- .Call(vr_rs_call_fast, state$ptr, args)
  if (inherits(r, "vr_failure")) return(.vr_failed(state, args, r))
  r
}

# Where it happened, for a message that does not say so itself.
.vr_where <- function(failure) {
  if (!is.null(failure$line) && grepl("line", failure$message, fixed = TRUE)) return("")
  # An index error that reads `x[5]: ...` names its variable, index and bound already.
  said <- !is.null(failure$variable) && startsWith(failure$message, paste0(failure$variable, "["))
  parts <- c(
    if (!is.null(failure[["function"]])) paste0("in ", failure[["function"]]),
    if (!is.null(failure$line)) paste0("line ", failure$line),
    if (!said && !is.null(failure$variable)) paste0("variable `", failure$variable, "`"),
    if (!said && !is.null(failure$index)) paste0("index ", failure$index),
    if (!said && !is.null(failure$bound)) paste0("bound ", failure$bound))
  if (length(parts)) paste0(" (", paste(parts, collapse = ", "), ")") else ""
}

# The fields of an R condition for a failure (`fun` is the R function it names).
.vr_fields <- function(failure) {
  list(kind = failure$kind, fun = failure[["function"]], line = failure$line,
    variable = failure$variable, index = failure$index, bound = failure$bound)
}

.vr_failed <- function(state, args, failure) {
  if (identical(failure$phase, "cache")) {
    # Not a failure: the on-disk cache refused an entry (said once per process); the
    # specialization is compiled, so calling again runs it.
    .vr_cache_warning(failure$message)
    return(.vr_invoke(state, args))
  }
  if (identical(failure$kind, "interrupted")) {
    # Ctrl-C stopped the compiled loop, or the compile (nothing of it is kept, so the
    # next call compiles again): R's own interrupt, as in R code. First, so that no
    # fallback runs the function in R instead.
    signalCondition(structure(class = c("interrupt", "condition"), list(message = "", call = NULL)))
    invokeRestart("abort")
  }
  # A signature that does not compile whole runs the outlined function (sections.R),
  # once it exists and has warned: the hot path of such calls.
  if (is.list(o <- state$outline) && state$warned && identical(failure$phase, "compile") &&
      !identical(failure$message, "stale")) {
    return(do.call(o$fun, args[seq_len(length(args) - length(state$globals))]))
  }
  # The compiler counts lines of the whole source; R users count from the function.
  starts <- attr(state$source, "starts")
  fn <- failure[["function"]]
  if (!is.null(fn) && !(fn %in% names(starts))) {
    # A further specialization (`g__2`) or a function defined inside `f` (`f.g`,
    # `f.fn5`): the R function whose lines count is the longest name that begins it.
    within <- startsWith(fn, paste0(names(starts), ".")) | startsWith(fn, paste0(names(starts), "__"))
    if (any(within)) {
      fn <- names(starts)[within][which.max(nchar(names(starts)[within]))]
      failure[["function"]] <- fn
    }
  }
  if (!is.null(failure$line) && !is.null(fn) && fn %in% names(starts)) {
    line <- failure$line - starts[[fn]] + 1
    failure$message <- gsub(paste0("line ", failure$line), paste0("line ", line), failure$message, fixed = TRUE)
    failure$line <- line
  }
  if (identical(failure$message, "stale")) {
    # The external pointer did not survive serialize(): rebuild from the kept source.
    state$ptr <- vr_rs_new(state$source, state$name, state$globals)
    return(.vr_invoke(state, args))
  }
  runs_in_r <- identical(failure$phase, "compile") || identical(failure$kind, "unsupported")
  if (runs_in_r) {
    # A check at run time (R's answer is NA, NULL, a longer vector) rather than a
    # construct: this call, not the function, needs R.
    what <- if (identical(failure$phase, "run")) " needs R for this call: " else " cannot be compiled: "
    msg <- paste0("velociraptor: ", state$name, what, failure$message, .vr_where(failure))
    # Calls of compiled specializations that R ran instead (vr_explain's `calls` counts
    # them too): vr_explain reports them as `calls_in_r`.
    if (identical(failure$phase, "run")) state$runs_in_r <- (if (is.null(state$runs_in_r)) 0 else state$runs_in_r) + 1
    if (!state$fallback) {
      stop(structure(class = c("velociraptor_unsupported", "velociraptor_error", "error", "condition"),
        c(list(message = msg, call = NULL), .vr_fields(failure))))
    }
    # The values of the globals follow the arguments: R reads its own.
    own <- args[seq_len(length(args) - length(state$globals))]
    # Its loops may still compile on their own (sections.R).
    if (identical(failure$phase, "compile") && !isFALSE(outline <- .vr_outline(state))) {
      return(.vr_run_outlined(state, outline, own, msg, failure))
    }
    if (!state$warned) {
      state$warned <- TRUE
      warning(structure(class = c("velociraptor_fallback", "warning", "condition"),
        c(list(message = paste0(msg, "; it runs in R"), call = NULL), .vr_fields(failure))))
    }
    # A callee called from R statements is called as R would from now on (callees.R).
    if (identical(failure$phase, "compile")) state$plain <- TRUE
    return(do.call(state$f, own))
  }
  msg <- paste0("velociraptor: ", failure$message, .vr_where(failure))
  stop(structure(class = c("velociraptor_error", "error", "condition"),
    c(list(message = msg, call = NULL), .vr_fields(failure))))
}

# The names a function assigns (`x <- ...`, `x[i] <- ...`, `for (x in ...)`): such a
# name is a local, never a constant of the enclosing environment.
.vr_assigned <- function(e) {
  if (!is.call(e)) return(character())
  head <- e[[1]]
  out <- character()
  if (is.name(head) && as.character(head) %in% c("<-", "=", "<<-") && length(e) >= 2) {
    t <- e[[2]]
    while (is.call(t)) t <- t[[2]]
    if (is.name(t)) out <- as.character(t)
  }
  if (is.name(head) && identical(as.character(head), "for") && is.name(e[[2]])) {
    out <- c(out, as.character(e[[2]]))
  }
  for (k in seq_along(e)[-1]) {
    if (is.call(e[[k]])) out <- c(out, .vr_assigned(e[[k]]))
  }
  unique(out)
}

.vr_deparse <- function(x) {
  paste(deparse(x, width.cutoff = 500L,
    control = c("keepNA", "keepInteger", "niceNames", "showAttributes", "digits17")),
    collapse = "\n")
}

# The string constants of an expression.
.vr_strings <- function(e) {
  if (is.character(e)) return(e)
  if (!is.call(e)) return(character())
  unique(unlist(lapply(as.list(e)[-1], .vr_strings)))
}

# A function's text, its first line being its header: the original source when R kept
# it (so line numbers are the user's), else deparse() with `{` joined to the header.
.vr_function_text <- function(fun) {
  src <- attr(fun, "srcref")
  if (!is.null(src)) return(paste(as.character(src), collapse = "\n"))
  lines <- strsplit(.vr_deparse(fun), "\n", fixed = TRUE)[[1]]
  if (length(lines) >= 2L && identical(trimws(lines[2]), "{")) {
    lines <- c(paste0(lines[1], "{"), lines[-(1:2)])
  }
  paste(lines, collapse = "\n")
}

# The names an expression reads as variables: symbols anywhere but in call position,
# on the right of `$` and `@`, or inside `quote()` and formulas (the bodies of nested
# functions included: compiled with the function, they read its globals too).
.vr_free_names <- function(e) {
  head <- e[[1]]
  if (is.name(head) && as.character(head) %in% c("quote", "~")) return(character())
  out <- character()
  if (is.call(head)) out <- .vr_free_names(head)
  args <- seq_along(e)[-1]
  if (is.name(head) && as.character(head) %in% c("$", "@")) args <- 2L
  for (k in args) {
    if (is.name(e[[k]])) {
      nm <- as.character(e[[k]])
      if (nzchar(nm)) out <- c(out, nm)
    } else if (is.call(e[[k]])) {
      out <- c(out, .vr_free_names(e[[k]]))
    }
  }
  unique(out)
}

# The environment, from `env` outwards, that binds `name` (NULL: none).
.vr_holder <- function(name, env) {
  # Strings the body holds are candidates too (`sapply(x, "f")`); "" names nothing.
  if (is.na(name) || !nzchar(name)) return(NULL)
  while (!identical(env, emptyenv())) {
    if (exists(name, envir = env, inherits = FALSE)) return(env)
    env <- parent.env(env)
  }
  NULL
}

# The R source handed to the compiler: `name <- f` and every closure f calls by name
# (from environment(f), transitively; functions of packages are R's library, not
# compiled). Attribute "starts": the line where each function starts, to turn the
# compiler's line numbers into the function's own. Attributes "globals" and "holders":
# the other free variables the functions read (R's `T`, `F` and `pi` excepted, which
# the compiler knows) and the environment binding each; the wrapper passes their values
# on every call, so a compiled function sees them as they are then.
vr_source <- function(f, name) {
  seen <- character()
  funs <- character()
  globals <- character()
  holders <- list()
  visit <- function(fun, nm) {
    seen <<- c(seen, nm)
    funs[[nm]] <<- paste0(nm, " <- ", .vr_function_text(fun))
    env <- environment(fun)
    if (is.null(env)) env <- globalenv()
    locals <- c(names(formals(fun)), .vr_assigned(body(fun)))
    # The body and the formals' defaults (evaluated in the function too).
    fmls <- formals(fun)
    given <- vapply(seq_along(fmls), function(k) !(is.name(fmls[[k]]) && !nzchar(as.character(fmls[[k]]))), TRUE)
    code <- as.call(c(list(as.name("{")), fmls[given], list(body(fun))))
    reads <- .vr_free_names(code)
    named <- all.names(code)
    # A function given to sapply & co. as a string (`sapply(x, "f")`).
    strings <- setdiff(.vr_strings(body(fun)), named)
    for (g in setdiff(c(named, strings), c(seen, locals, globals))) {
      holder <- .vr_holder(g, env)
      if (is.null(holder)) next
      obj <- get(g, envir = holder)
      if (g %in% strings && !is.function(obj)) next
      if (is.function(obj)) {
        fenv <- environment(obj)
        if (is.primitive(obj) || is.null(fenv) || isNamespace(fenv) ||
            identical(fenv, baseenv())) next
        visit(obj, g)
      } else if (g %in% reads && !(g %in% c("T", "F", "pi") && identical(holder, baseenv()))) {
        globals <<- c(globals, g)
        holders[[length(holders) + 1L]] <<- holder
      }
    }
  }
  visit(f, name)
  nlines <- vapply(funs, function(t) length(strsplit(t, "\n", fixed = TRUE)[[1]]), 0L)
  starts <- cumsum(c(1L, nlines))[seq_along(funs)]
  names(starts) <- names(funs)
  structure(paste(funs, collapse = "\n"), starts = starts, globals = globals, holders = holders)
}

#' @export
print.vr_function <- function(x, ...) {
  state <- environment(x)$.vr_state
  cat("<velociraptor compiled function `", state$name, "`>\n", sep = "")
  print(state$f, ...)
  invisible(x)
}

#' Explain a compiled function
#'
#' The specializations compiled so far for a function made by [vr_compile()]: each
#' signature of argument types, whether it compiled (or why not), the compile time,
#' how often it was called, where it runs (serial or parallel, with how many threads),
#' what the optimizer did (the passes that changed something, with their counts: bounds
#' checks removed, loops versioned, temporaries made, ...), and its VRIR after the
#' optimizer (the typed IR the compiler turns into machine code; parallel loops are
#' `parfor`, GPU sections `on_gpu` blocks). The user's function comes first, then the
#' functions it calls.
#'
#' With `vr_options(gpu = )` putting `gpu({ ... })` sections on an OpenCL device, the
#' report has one line per section, over every call so far: where it ran (the device, or
#' the CPU), the kernels launched, the tasks that ran on the CPU instead, the transfers
#' and bytes moved to the device and back, and the device's time in transfers and in
#' kernels; then a `gpu note` per statement of a section that stays on the CPU, and why.
#'
#' When the function does not compile whole but its loops do (see "Sections" in
#' [vr_compile()]), the report lists its statements by line: which run compiled (as
#' which section, with its inputs and outputs and its own specializations), which run
#' in R, and why.
#'
#' @param g A function returned by [vr_compile()].
#' @param vrir Whether to print the VRIR of each specialization.
#' @param verbose Whether to show everything: every pass on every function (also those
#'   with nothing to do), and the helper functions the compiler generates to raise
#'   errors.
#' @return Invisibly, a list with one element per specialization (fields `signature`,
#'   `compiled`, `compile_seconds`, `calls`, `vrir` (the user's functions), `vrir_all`
#'   (with the generated helpers), `report` (backend, bounds checks, what the on-disk
#'   cache did or why it was not used, the optimizer's counts), `error`, and for a
#'   signature that does not compile whole while the function's sections do,
#'   `sections`: one list per section with `lines`, `inputs`, `outputs`, `compiled`
#'   (whether a call ran it compiled), `calls_compiled`, `calls_in_r`, `why` (the last
#'   reason it ran in R) and `specs` (its specializations, as above)).
#' @examples
#' g <- vr_compile(function(x) sum(x * 2))
#' g(c(1, 2, 3))
#' vr_explain(g)
#' @export
vr_explain <- function(g, vrir = TRUE, verbose = FALSE) {
  if (!inherits(g, "vr_function")) stop("vr_explain() needs a function made by vr_compile()")
  .vr_explain(g, vrir, verbose, new.env(parent = emptyenv()))
}

# `seen`: the functions reported already (callees may call back, callees.R).
.vr_explain <- function(g, vrir, verbose, seen) {
  state <- environment(g)$.vr_state
  seen[[state$name]] <- TRUE
  specs <- .Call(wrap__vr_rs_explain, state$ptr)
  if (inherits(specs, "vr_failure")) specs <- list()
  # Calls R ran at run time instead (an answer compiled code cannot give): counted per
  # function, not per specialization.
  in_r <- if (is.null(state$runs_in_r)) 0 else state$runs_in_r
  for (k in seq_along(specs)) specs[[k]]$calls_in_r <- in_r
  cat("velociraptor function `", state$name, "`: ", length(specs), " specialization(s)",
    if (in_r > 0) paste0(" (", in_r, " call(s) ran in R: an answer compiled code cannot give)"), "\n", sep = "")
  outlined <- is.list(state$outline)
  .vr_explain_specs(specs, verbose, vrir, indent = "", outlined = outlined)
  if (outlined) {
    secs <- .vr_explain_sections(state, verbose, vrir)
    callees <- .vr_explain_callees(state, verbose, vrir, seen)
    for (k in seq_along(specs)) {
      if (!isTRUE(specs[[k]]$compiled)) {
        specs[[k]]$sections <- secs
        specs[[k]]$callees <- callees
      }
    }
  }
  invisible(specs)
}

.vr_explain_specs <- function(specs, verbose, vrir, indent, outlined = FALSE) {
  for (s in specs) {
    gpu <- !is.null(s$report) && grepl("\ngpu section ", paste0("\n", s$report), fixed = TRUE)
    where <- if (isTRUE(s$compiled) && gpu) "native code; gpu({ ... }) sections: see `gpu section` below"
      else if (isTRUE(s$compiled)) "native code on the CPU"
      else if (outlined) paste("does not compile whole:", s$error, "(runs in R, its sections compiled: below)")
      else paste("runs in R:", s$error)
    cat(indent, sprintf("- (%s): %s, compile %.3f s, %d call(s)\n", s$signature, where,
      s$compile_seconds, as.integer(s$calls)), sep = "")
    if (!is.null(s$report)) cat(paste0(indent, "  ", .vr_report_lines(s$report, verbose)), sep = "\n")
    if (vrir && !is.null(s$vrir)) cat(if (verbose) s$vrir_all else s$vrir, "\n", sep = "")
  }
}

# The compiled function's report (bindings' VR_DUMP_EXPLAIN text: a header, then
# `optimizer:` and one line `PASS on FUNCTION: counters` per pass and function): in
# full when `verbose`, else the optimizer's part by function, the user's first, with
# only the passes that changed something and without the generated error helpers.
.vr_report_lines <- function(report, verbose) {
  lines <- strsplit(report, "\n", fixed = TRUE)[[1]]
  at <- match("optimizer:", lines)
  if (verbose || is.na(at)) return(lines)
  head <- lines[seq_len(at - 1L)]
  passes <- lines[-seq_len(at)]
  m <- regmatches(passes, regexec("^(\\S+) on (\\S+): ?(.*)$", passes))
  ok <- lengths(m) == 4L
  pass <- vapply(m[ok], `[`, "", 2L)
  fun <- vapply(m[ok], `[`, "", 3L)
  counts <- trimws(vapply(m[ok], `[`, "", 4L))
  did <- nzchar(counts) & counts != "nothing to do"
  funs <- unique(fun[!startsWith(fun, "_error_")])
  body <- vapply(funs, function(f) {
    k <- fun == f & did
    paste0("  ", f, ": ", if (any(k)) paste0(pass[k], " (", counts[k], ")", collapse = ", ") else "no pass changed anything")
  }, "")
  c(head, "optimizer (passes that changed something; verbose = TRUE shows every pass):", unname(body))
}

.vr_default_threads <- function() {
  limit <- Sys.getenv("_R_CHECK_LIMIT_CORES_", "")
  if (nzchar(limit) && !identical(tolower(limit), "false")) 2L else 0L
}

.vr_default_cache_dir <- function() {
  tools::R_user_dir("velociraptor", "cache")
}

# The on-disk cache refused a directory or entry that someone other than the user could
# have written (the Rust side reports that once per process): a warning the user can
# catch or muffle by its class.
.vr_cache_warning <- function(status) {
  warning(structure(class = c("velociraptor_cache", "warning", "condition"),
    list(message = paste0("velociraptor: on-disk cache ", status), call = NULL)))
}

#' Options of the compiler
#'
#' Sets (and reports) how compiled functions run. Changing an option makes every
#' compiled function compile again on its next call.
#'
#' @param threads Threads of parallel loops (`prange`) and parallel array operators;
#'   `0` means every core. At most 2 when the environment variable
#'   `_R_CHECK_LIMIT_CORES_` is set (as `R CMD check` does).
#' @param cache_dir Directory of the on-disk cache of machine code (`""`: none); by
#'   default `tools::R_user_dir("velociraptor", "cache")`, created (with any missing
#'   parent) mode 0700. See "The on-disk cache" below for what it trusts.
#' @param bounds_checks Whether compiled code checks indices (`FALSE` is faster and
#'   undefined on an out-of-bounds index).
#' @param gpu Where `gpu({ ... })` sections run: `"auto"` (the default), where an
#'   OpenCL driver offers a GPU, on it or on the CPU's cores, task by task, whichever a
#'   cost model of the work and of the data to move estimates faster (the machine is
#'   measured once, see [vr_explain()]), else on the CPU; `"on"` on any OpenCL device, a CPU
#'   one such as PoCL's included (a warning says so when there is none); `"off"` on the
#'   CPU. The rest of a function runs on the CPU's cores either way. Results are the
#'   same everywhere, except that the GPU's `exp`, `log`, `sin`, ... may differ from the
#'   CPU's in the last bits (a few units in the last place). `vr_stats()$gpu` says where
#'   sections run; [vr_explain()] what each section did. `VR_OPENCL_DEVICE=P/D` picks
#'   device D of platform P.
#' @param tiers How a function compiles on its first call with new argument types:
#'   `"full"` compiles it at full strength before running it; `"quick-first"` compiles quick code (2-3x less compile time, running 1.0-1.5x
#'   slower) and compiles the full-strength code in the background, which every later
#'   call runs once ready: better where first calls are short (interactive work),
#'   worse for a single long call; `"auto"` (the default) is quick-first, except that a
#'   call whose work, estimated from its arguments, is long waits for the full-strength
#'   code ([vr_explain()] shows the estimate and the choice). Results are the same
#'   either way. The environment variable `VR_TIERS` sets the default when it names one.
#' @return The options in force, as a list (invisibly when any was set).
#' @section The on-disk cache:
#' The cache holds machine code that later R processes load and run, so it is used only
#' where no one but you (or root) can write: the directory must be yours (or root's) and
#' not writable by group or others, and so must each parent directory up to `/` or to a
#' sticky directory such as `/tmp` (a root-owned sticky parent may be world-writable:
#' its sticky bit keeps others from replacing what is yours). An entry is loaded only
#' when it is a regular file (not a symbolic link) of yours that group and others cannot
#' write. These are the rules OpenSSH applies to `~/.ssh`. Anything else means another
#' user could have planted code there: nothing is loaded from it or written to it,
#' functions compile in memory (same results, a slower first call), and a warning of
#' class `velociraptor_cache` says why, once per R session; `vr_stats()$disk_cache` and
#' `vr_explain()` say it too. A directory on a cluster's shared scratch space, or one
#' whose group may write (a umask of 002), is refused: use a private one, or
#' `chmod go-w` it. Each entry also carries a checksum, which catches accidents
#' (truncation, a damaged disk), not an attacker.
#' @examples
#' old <- vr_options()
#' vr_options(threads = 1)
#' vr_options(threads = old$threads)
#' @export
vr_options <- function(threads = NULL, cache_dir = NULL, bounds_checks = NULL, gpu = NULL, tiers = NULL) {
  opts <- .vr$options
  if (is.null(threads) && is.null(cache_dir) && is.null(bounds_checks) && is.null(gpu) && is.null(tiers)) return(opts)
  if (!is.null(threads)) {
    threads <- as.integer(threads)
    if (length(threads) != 1L || is.na(threads) || threads < 0L) stop("`threads` must be a count (0: every core)")
    if (.vr_default_threads() == 2L && (threads == 0L || threads > 2L)) threads <- 2L
    opts$threads <- threads
  }
  if (!is.null(cache_dir)) opts$cache_dir <- as.character(cache_dir)
  if (!is.null(bounds_checks)) opts$bounds_checks <- isTRUE(bounds_checks)
  if (!is.null(gpu)) {
    if (!is.character(gpu) || length(gpu) != 1L || !(gpu %in% c("auto", "on", "off")))
      stop("`gpu` must be \"auto\", \"on\" or \"off\"")
    opts$gpu <- gpu
  }
  if (!is.null(tiers)) {
    if (!is.character(tiers) || length(tiers) != 1L || !(tiers %in% c("full", "quick-first", "auto")))
      stop("`tiers` must be \"full\", \"quick-first\" or \"auto\"")
    opts$tiers <- tiers
  }
  .vr_apply_options(opts)
  invisible(opts)
}

.vr_apply_options <- function(opts) {
  # The Rust side creates the directory (mode 0700) and checks who can write it.
  r <- vr_rs_configure(as.numeric(opts$threads), opts$cache_dir, opts$bounds_checks, opts$gpu, opts$tiers)
  if (inherits(r, "vr_failure")) stop("velociraptor: ", r$message)
  .vr$options <- opts
  .vr_gpu_warning(r)
  if (is.character(r)) .vr_cache_warning(r)
}

# `gpu = "on"` and no OpenCL device: sections run on the CPU (same results), and R says
# why, with a class the user can muffle.
.vr_gpu_warning <- function(r) {
  w <- attr(r, "gpu_warning")
  if (is.null(w)) return(invisible())
  warning(structure(class = c("velociraptor_gpu", "warning", "condition"),
    list(message = paste0("velociraptor: ", w), call = NULL)))
}

#' Cache statistics
#'
#' Counters of the compile caches of this R process: functions compiled by LLVM, calls
#' answered from the in-process cache, machine code loaded from the on-disk cache.
#' @return A list of counts (`compiles`, `memory_hits`, `disk_hits`, `disk_writes`,
#'   `disk_rejects`: damaged entries rebuilt, `disk_untrusted`: directories and entries
#'   refused because someone else could have written them), `disk_cache`: `"off"`,
#'   `"in use: DIR"` or `"not used: REASON"` (see [vr_options()]), and `gpu`: where
#'   `gpu({ ... })` sections run under `vr_options(gpu = )` (the device, or why the CPU).
#' @examples
#' vr_stats()
#' @export
vr_stats <- function() {
  r <- vr_rs_stats()
  if (inherits(r, "vr_failure")) stop("velociraptor: ", r$message)
  r
}

#' Markers for parallel loops and GPU sections
#'
#' In R these are plain functions, so marked code runs unchanged without compiling:
#' `prange(n)` is `seq_len(n)` and `gpu(expr)` evaluates `expr`. A compiled function
#' runs `for (i in prange(n))` as a parallel loop (its iterations must be independent)
#' and a `gpu({ ... })` section on a GPU where one is available (else on the CPU).
#'
#' @param n The number of iterations.
#' @param expr A block of code.
#' @return `prange`: `seq_len(n)`; `gpu`: the value of `expr`, invisibly.
#' @examples
#' f <- function(x) {
#'   y <- numeric(length(x))
#'   for (i in prange(length(x))) y[i] <- sqrt(x[i])
#'   y
#' }
#' f(c(1, 4, 9))
#' gpu({ z <- 1 + 1 })
#' @export
prange <- function(n) seq_len(n)

#' @rdname prange
#' @export
gpu <- function(expr) invisible(expr)

.onLoad <- function(libname, pkgname) {
  # At R's exit, wait for the background compiles of the full tier (vr_options(tiers)):
  # LLVM's static destructors must not run under one. vr_stats() waits for them.
  reg.finalizer(.vr, function(e) try(vr_rs_stats(), silent = TRUE), onexit = TRUE)
  threads <- getOption("velociraptor.threads", .vr_default_threads())
  if (.vr_default_threads() == 2L) threads <- min(max(threads, 1L), 2L)
  cache <- getOption("velociraptor.cache_dir", .vr_default_cache_dir())
  gpu <- getOption("velociraptor.gpu", "auto")
  if (!(identical(gpu, "auto") || identical(gpu, "on") || identical(gpu, "off"))) gpu <- "auto"
  tiers <- getOption("velociraptor.tiers", Sys.getenv("VR_TIERS"))
  if (!(tiers %in% c("full", "quick-first", "auto"))) tiers <- "auto"
  .vr$options <- list(threads = as.integer(threads), cache_dir = cache, bounds_checks = TRUE, gpu = gpu, tiers = tiers)
  # Created at load (mode 0700, by the Rust side), except under R CMD check (which must
  # not write to the user's files).
  if (!dir.exists(cache) && nzchar(Sys.getenv("_R_CHECK_PACKAGE_NAME_"))) cache <- ""
  r <- vr_rs_configure(as.numeric(threads), cache, TRUE, gpu, tiers)
  if (inherits(r, "vr_failure")) warning("velociraptor: ", r$message)
  .vr_gpu_warning(r)
  if (is.character(r)) .vr_cache_warning(r)
}
