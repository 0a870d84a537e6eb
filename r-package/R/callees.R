# Calls from R to compiled callees. When a function does not compile whole, R runs it
# (with its sections compiled, sections.R); the calls its R statements make to the other
# functions of its program (those vr_source() gathered from its environment) then go to
# their own compiled wrappers, made as vr_compile() makes them. Benchmark drivers are
# written so (`execute <- function(n) { cat(...); spectralnorm(n) }`, `run(data)` calling
# kernels): without this, a driver that prints would run its kernels in R.
#
# A callee's wrapper gives R's answer as any wrapper does (whole, in sections, or R
# itself); it evaluates every argument at the call (defaults at its entry), as compiled
# functions do (docs/frontend-r.md, "lazy evaluation"), so a call is redirected only when
# that cannot differ: its arguments are constants, variables and calls of functions
# without effects (.vr_eager_ok). A callee whose body asks how it
# was called (missing(), substitute(), sys.call(), parent.frame(), ...) would see the
# wrapper's call instead: it is left to R, as is a call R could not match to its formals
# before running it (an unknown argument name, a formal without default not given, `...`).
# Callees' wrappers do not warn; the caller's warning and vr_explain() report them.

# Names in a function's body that see how it was called or where from.
.vr_call_sensitive <- c("missing", "substitute", "match.call", "sys.call", "sys.function",
  "nargs", "on.exit", "parent.frame", "environment", "match.arg", "sys.frame",
  "sys.frames", "sys.calls", "sys.parents", "parent.env", "eval", "evalq", "local",
  "delayedAssign", "deparse", "browser")

# The callees of `state`'s function that its R statements may call through wrappers: a
# named list of list(f = the closure, wrapper = its wrapper).
.vr_callees <- function(state) {
  starts <- attr(state$source, "starts")
  fenv <- environment(state$f)
  if (is.null(fenv)) fenv <- globalenv()
  locals <- c(names(formals(state$f)), .vr_assigned(body(state$f)))
  if (is.null(state$family)) state$family <- new.env(parent = emptyenv())
  out <- list()
  for (g in setdiff(names(starts), c(state$name, locals))) {
    if (!exists(g, envir = fenv)) next
    obj <- get(g, envir = fenv)
    if (!is.function(obj) || is.primitive(obj)) next
    if ("..." %in% names(formals(obj))) next
    if (any(all.names(body(obj)) %in% .vr_call_sensitive)) next
    if (!(g %in% all.names(body(state$f)))) next
    w <- state$family[[g]]
    if (is.null(w)) {
      w <- .vr_make(obj, g, TRUE, state$family)
      # Quiet: the caller's warning and vr_explain() say what ran where.
      environment(w)$.vr_state$warned <- TRUE
    }
    # The call's head: `(if (state$plain) g else wrapper)`. A callee that runs in R
    # whole (it does not compile and has no section) is called as R would call it,
    # at R's cost, from then on (`.vr_failed` sets `plain`).
    ws <- environment(w)$.vr_state
    if (is.null(ws$plain)) ws$plain <- FALSE
    head <- as.call(list(`if`, as.call(list(`$`, ws, quote(plain))), obj, w))
    out[[g]] <- list(f = obj, wrapper = w, head = head)
  }
  out
}

# Functions an argument may call and still be evaluated at the call rather than when the
# callee first uses it (R's promise): they have no effects and stop only on an invalid
# subscript or shape, where the callee, using the argument, stops in R as well.
.vr_eager_safe <- c("+", "-", "*", "/", "^", "%%", "%/%", "%*%", "==", "!=", "<", ">", "<=",
  ">=", "!", "&", "|", "&&", "||", ":", "(", "[", "[[", "c", "length", "nrow", "ncol", "dim",
  "NROW", "NCOL", "seq_len", "seq_along", "rep", "numeric", "integer", "double", "logical",
  "as.integer", "as.numeric", "as.double", "abs", "sqrt", "exp", "log", "floor", "ceiling",
  "round", "trunc", "sum", "prod", "mean", "max", "min", "t", "rev", "Re", "Im", "Mod",
  "Conj", "complex", "is.na", "sin", "cos", "tan", "atan2")

# Whether evaluating `e` now rather than lazily cannot differ: constants, variables and
# calls of .vr_eager_safe functions of such arguments.
.vr_eager_ok <- function(e) {
  if (!is.call(e)) return(TRUE)
  if (!is.name(e[[1]]) || !(as.character(e[[1]]) %in% .vr_eager_safe)) return(FALSE)
  for (k in seq_along(e)[-1]) {
    # an empty subscript (`m[, j]`) is fine
    if (!identical(e[[k]], quote(expr = )) && is.call(e[[k]]) && !.vr_eager_ok(e[[k]])) return(FALSE)
  }
  TRUE
}

# Whether `call` (a call of closure `f`) matches f's formals as R would match it, with
# every formal that has no default given, no `...`, and arguments a wrapper may evaluate
# at the call (.vr_eager_ok).
.vr_call_matches <- function(f, call) {
  args <- as.list(call)[-1]
  if (any(vapply(args, function(a) identical(a, as.name("...")), TRUE))) return(FALSE)
  if (!.vr_eager_ok(as.call(c(list(as.name("c")), args)))) return(FALSE)
  m <- tryCatch(match.call(f, call), error = function(e) NULL)
  if (is.null(m)) return(FALSE)
  fm <- formals(f)
  required <- names(fm)[vapply(names(fm), function(n) identical(fm[[n]], quote(expr = )), TRUE)]
  all(required %in% names(m)[-1])
}

# `e` with each call of a callee (by name, matching its formals) calling the callee's
# wrapper instead (placed in the call itself, as sections.R places .vr_section, behind
# the `plain` switch of .vr_callees). Function
# definitions, quoted code and assignment targets are left as they are. `used` collects
# the names replaced.
.vr_call_callees <- function(e, callees, used) {
  if (!is.call(e)) return(e)
  head <- e[[1]]
  h <- if (is.name(head)) as.character(head) else ""
  if (h %in% c("function", "quote", "bquote", "substitute", "~", "expression", "alist")) return(e)
  first <- if (h %in% c("<-", "=", "<<-", "->", "->>")) 3L else 2L
  for (k in seq_along(e)[-1]) {
    if (k >= first && is.call(e[[k]])) e[[k]] <- .vr_call_callees(e[[k]], callees, used)
  }
  if (is.call(head)) e[[1]] <- .vr_call_callees(head, callees, used)
  if (nzchar(h) && h %in% names(callees) && .vr_call_matches(callees[[h]]$f, e)) {
    e[[1]] <- callees[[h]]$head
    used$names <- union(used$names, h)
  }
  e
}

# The callees that ran compiled, for the warning: "calls of g, h compiled".
.vr_callees_summary <- function(outline) {
  ran <- Filter(function(g) .vr_callee_compiled(outline$callees[[g]]), names(outline$callees))
  if (length(ran)) paste0("calls of ", paste(ran, collapse = ", "), " compiled") else character()
}

# Whether a callee's wrapper ran compiled code (whole or sections) so far. `seen`: the
# wrappers asked already (a family may call itself back).
.vr_callee_compiled <- function(w, seen = new.env(parent = emptyenv())) {
  state <- environment(w)$.vr_state
  if (!is.null(seen[[state$name]])) return(FALSE)
  seen[[state$name]] <- TRUE
  specs <- .Call(wrap__vr_rs_explain, state$ptr)
  if (inherits(specs, "vr_failure")) specs <- list()
  # Calls of compiled specializations, less those R ran at run time instead.
  in_r <- if (is.null(state$runs_in_r)) 0 else state$runs_in_r
  whole <- sum(vapply(specs, function(s) if (isTRUE(s$compiled)) as.numeric(s$calls) else 0, 0)) > in_r
  secs <- is.list(state$outline) && any(vapply(state$outline$sections, function(sec) !is.null(sec) && sec$compiled > 0, TRUE))
  inner <- is.list(state$outline) && any(vapply(state$outline$callees, function(c) .vr_callee_compiled(c, seen), TRUE))
  whole || secs || inner
}

# vr_explain's part on callees: each one's own report (once per function of the family).
.vr_explain_callees <- function(state, verbose, vrir, seen) {
  callees <- if (is.list(state$outline)) state$outline$callees else list()
  out <- list()
  if (!length(callees)) return(out)
  cat("  calls from R to compiled functions:", paste(names(callees), collapse = ", "), "\n")
  for (g in names(callees)) {
    if (!is.null(seen[[g]])) next
    out[[g]] <- .vr_explain(callees[[g]], vrir, verbose, seen)
  }
  out
}
