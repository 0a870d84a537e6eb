# Sections: when a function does not compile whole (a cat(), a print(), an options()
# call next to its loops), its numeric sections still do. The compiler finds them
# (vr_rs_sections: maximal runs of statements holding a loop whose every construct
# compiles; bindings/r/src/sections.rs, core/src/frontend/sections.rs); here the
# function is rewritten once so that R runs it with each section replaced by
#
#   if (!.vr_section(state, k)) { <the section's original statements> }
#
# .vr_section reads the section's inputs from the calling frame, calls the section's
# own compiled function (specialized per signature like any compiled function), and
# assigns its outputs back; when it cannot (an input is missing or is not a plain
# vector, or the section does not compile for these types) it answers FALSE and R runs
# the original statements. docs/frontend-r.md, "Sections".

# The outlined function of `state` (a vr_compile state), built on first use; FALSE when
# the function has no section.
.vr_outline <- function(state) {
  if (!is.null(state$outline)) return(state$outline)
  state$outline <- FALSE
  a <- vr_rs_sections(state$source, state$name)
  if (inherits(a, "vr_failure")) return(FALSE)
  state$section_notes <- a$notes
  # Calls of the program's other functions go to their wrappers (callees.R); the
  # sections' paths do not change (only call heads are replaced).
  used <- new.env(parent = emptyenv())
  b <- .vr_call_callees(body(state$f), .vr_callees(state), used)
  callees <- lapply(stats::setNames(nm = used$names), function(g) state$family[[g]])
  if (!length(a$sections) && !length(callees)) return(FALSE)
  secs <- list()
  # Later and deeper sections first, so that the paths of the others stay valid.
  keys <- vapply(a$sections, function(s) paste(sprintf("%06d", c(s$path, 0L)), collapse = "."), "")
  for (s in a$sections[order(keys, decreasing = TRUE)]) {
    nb <- .vr_replace_run(b, s$path, s$count, .vr_section_call(state, s$number))
    if (is.null(nb)) next
    b <- nb
    secs[[s$number]] <- .vr_section_state(state, s)
  }
  if (!length(secs) && !length(callees)) return(FALSE)
  fun <- state$f
  body(fun) <- b
  attr(fun, "srcref") <- NULL
  state$outline <- list(fun = fun, sections = secs, callees = callees)
  state$outline
}

# One section's state: where it is, its inputs and outputs, and its compiled entry (a
# function of its own in the source: `name__sec_k <- .vr_section_of("name", k)`, which
# the front end turns into the section's statements with their original lines).
.vr_section_state <- function(state, s) {
  sec <- new.env(parent = emptyenv())
  sec$number <- s$number
  sec$name <- paste0(state$name, "__sec_", s$number)
  sec$inputs <- s$inputs
  sec$keep <- s$keep
  sec$outputs <- s$outputs
  sec$lines <- c(s$first_line, s$last_line)
  sec$source <- paste0(state$source, "\n", sec$name, " <- .vr_section_of(\"", state$name, "\", ", s$number, "L)\n")
  # The section reads the function's globals as the function does: hidden arguments
  # after its inputs (velociraptor.R, vr_source).
  sec$globals <- state$globals
  sec$holders <- attr(state$source, "holders")
  sec$ptr <- vr_rs_new(sec$source, sec$name, sec$globals)
  # The variant without the inputs it only keeps (made when first needed).
  sec$fresh_source <- sub("L)\n$", "L, TRUE)\n", sec$source)
  sec$fresh_ptr <- NULL
  sec$compiled <- 0
  sec$in_r <- 0
  sec$why <- NULL
  sec
}

# `if (!.vr_section(state, k)) { ... }`, the closure and the state placed in the call
# itself (the function's environment stays the user's).
.vr_section_call <- function(state, k) {
  as.call(list(`!`, as.call(list(.vr_section, state, k))))
}

.vr_block <- function(stmts) as.call(c(list(as.name("{")), stmts))

# `e` with the `count` statements at `path` (of `[[` indices; see the Rust side)
# wrapped as `if (<test>) { statements }`; NULL when the path does not lead through
# blocks and control flow (then the section is left to R).
.vr_replace_run <- function(e, path, count, test) {
  heads <- c("{", "for", "while", "repeat", "if")
  wrap <- function(stmts) as.call(list(as.name("if"), test, .vr_block(stmts)))
  if (!length(path)) {
    if (count != 1L) return(NULL)
    return(wrap(list(e)))
  }
  set_at <- function(x, p, value) {
    if (!length(p)) return(value)
    if (!is.call(x) || !is.name(x[[1]]) || !(as.character(x[[1]]) %in% heads) || p[1] > length(x)) return(NULL)
    inner <- set_at(x[[p[1]]], p[-1], value)
    if (is.null(inner)) return(NULL)
    x[[p[1]]] <- inner
    x
  }
  parent_path <- path[-length(path)]
  first <- path[length(path)]
  parent <- e
  for (k in parent_path) {
    if (!is.call(parent) || !is.name(parent[[1]]) || !(as.character(parent[[1]]) %in% heads) || k > length(parent)) return(NULL)
    parent <- parent[[k]]
  }
  if (!is.call(parent) || !is.name(parent[[1]])) return(NULL)
  if (identical(parent[[1]], as.name("{"))) {
    items <- as.list(parent)
    last <- first + count - 1L
    if (first < 2L || last > length(items)) return(NULL)
    new <- as.call(c(items[seq_len(first - 1L)], list(wrap(items[first:last])), items[-seq_len(last)]))
  } else {
    if (count != 1L || !(as.character(parent[[1]]) %in% heads) || first > length(parent)) return(NULL)
    new <- parent
    new[[first]] <- wrap(list(parent[[first]]))
  }
  set_at(e, parent_path, new)
}

# Run section k of `state` compiled in the calling frame: TRUE when it ran (its outputs
# are assigned), FALSE when R must run its statements.
.vr_section <- function(state, k) {
  env <- parent.frame()
  sec <- state$outline$sections[[k]]
  # The wrapper passes every argument as a value (defaults evaluated at entry), so no
  # input is a promise or a missing argument: mget cannot fail, and a local not
  # assigned yet comes back NULL.
  args <- mget(sec$inputs, envir = env, inherits = FALSE, ifnotfound = list(NULL))
  fresh <- length(sec$keep) && any(vapply(args[sec$keep], is.null, TRUE))
  if (fresh) {
    # A variable the section may leave unassigned has no value yet: the variant that
    # does not take it (if a path then leaves it unassigned, R runs the statements).
    args <- args[setdiff(names(args), sec$keep)]
    if (is.null(sec$fresh_ptr)) sec$fresh_ptr <- vr_rs_new(sec$fresh_source, sec$name, sec$globals)
  }
  # Compiled code drops names and other attributes but `dim`: such an input runs in R.
  for (v in args) {
    if (is.null(v)) return(.vr_section_in_r(sec, "an input has no value yet"))
    if (!.vr_plain(v)) {
      return(.vr_section_in_r(sec, "an input has attributes (names, dimnames, a class) compiled code would drop"))
    }
  }
  if (length(sec$globals)) {
    gl <- Map(function(g, h) mget(g, envir = h, inherits = FALSE, ifnotfound = list(NULL))[[1]], sec$globals, sec$holders)
    for (v in gl) {
      if (is.null(v)) return(.vr_section_in_r(sec, "a global it may read is gone"))
      if (!.vr_plain(v)) {
        return(.vr_section_in_r(sec, "a global has attributes (names, dimnames, a class) compiled code would drop"))
      }
    }
    names(gl) <- NULL
    args <- c(args, gl)
  }
  r <- .Call(vr_rs_call_fast, if (fresh) sec$fresh_ptr else sec$ptr, args)
  if (is.object(r)) {
    if (identical(r$message, "stale")) {
      # The external pointers did not survive serialize(): rebuild them from the source.
      sec$ptr <- vr_rs_new(sec$source, sec$name, sec$globals)
      sec$fresh_ptr <- vr_rs_new(sec$fresh_source, sec$name, sec$globals)
      r <- .Call(vr_rs_call_fast, if (fresh) sec$fresh_ptr else sec$ptr, args)
    }
    if (is.object(r)) return(.vr_section_failed(state, sec, args, r))
  }
  outs <- sec$outputs
  if (length(outs) == 1L) {
    env[[outs]] <- r
  } else if (length(outs) > 1L) {
    for (j in seq_along(outs)) env[[outs[[j]]]] <- r[[j]]
  }
  sec$compiled <- sec$compiled + 1
  TRUE
}

# Does compiled code see all of `v`? A vector with no attribute but `dim`; a list (its
# names) or data frame (its names, row names and class) whose numeric elements are such
# vectors, at any depth (other elements compiled code cannot read at all: reading one
# fails to compile, and R runs the section).
.vr_plain <- function(v) {
  a <- names(attributes(v))
  if (is.list(v) && !is.object(v)) {
    if (!all(a %in% "names")) return(FALSE)
  } else if (is.data.frame(v)) {
    if (!all(a %in% c("names", "row.names", "class"))) return(FALSE)
  } else {
    return(!(is.numeric(v) || is.logical(v) || is.complex(v)) || is.object(v) || all(a %in% "dim"))
  }
  for (e in v) if (!.vr_plain(e)) return(FALSE)
  TRUE
}

.vr_section_in_r <- function(sec, why) {
  sec$in_r <- sec$in_r + 1
  sec$why <- why
  FALSE
}

# A section's failure: when it does not compile for these types, or R has an answer
# compiled code cannot give, R runs its statements (nothing was assigned yet); an error
# is the user's function's error, at the user's line.
.vr_section_failed <- function(state, sec, args, failure) {
  if (identical(failure$phase, "compile") || identical(failure$kind, "unsupported")) {
    return(.vr_section_in_r(sec, paste0(failure$message, .vr_where(failure))))
  }
  if (identical(failure$kind, "runtime") && grepl("unassigned variable", failure$message, fixed = TRUE)) {
    # A path left a variable unassigned (see `keep`): R leaves it without a value too.
    return(.vr_section_in_r(sec, paste0("the section left `", failure$variable, "` unassigned")))
  }
  if (identical(failure[["function"]], sec$name)) failure[["function"]] <- state$name
  failure$message <- gsub(sec$name, state$name, failure$message, fixed = TRUE)
  .vr_failed(state, args, failure)
}

# Run the outlined function for a call whose signature does not compile whole; the
# first time, one warning says what ran where.
.vr_run_outlined <- function(state, outline, args, msg, failure) {
  r <- do.call(outline$fun, args)
  if (!state$warned) {
    state$warned <- TRUE
    warning(structure(class = c("velociraptor_fallback", "warning", "condition"),
      c(list(message = paste0(msg,
        "; it runs in R with its loops compiled: ",
        .vr_sections_summary(outline)), call = NULL), .vr_fields(failure))))
  }
  r
}

.vr_lines <- function(l) if (l[1] == l[2]) paste0("line ", l[1]) else paste0("lines ", l[1], "-", l[2])

# "lines 4-9 compiled; lines 12-15 ran in R: <why>; calls of g compiled"
.vr_sections_summary <- function(outline) {
  parts <- vapply(Filter(Negate(is.null), outline$sections), function(sec) {
    if (sec$in_r > 0 && sec$compiled == 0) paste0(.vr_lines(sec$lines), " ran in R: ", sec$why)
    else if (sec$in_r > 0) paste0(.vr_lines(sec$lines), " compiled (some calls ran in R: ", sec$why, ")")
    else if (sec$compiled > 0) paste0(.vr_lines(sec$lines), " compiled")
    else paste0(.vr_lines(sec$lines), " not reached yet")
  }, "")
  paste(c(parts, .vr_callees_summary(outline)), collapse = "; ")
}

# vr_explain's part on sections: which lines run compiled, which in R, and why; the
# sections as a list (vr_explain's value).
.vr_explain_sections <- function(state, verbose, vrir) {
  notes <- state$section_notes
  outline <- state$outline
  secs <- lapply(outline$sections, function(sec) {
    if (is.null(sec)) return(NULL)
    specs <- list()
    for (ptr in list(sec$ptr, sec$fresh_ptr)) {
      more <- if (!is.null(ptr)) .Call(wrap__vr_rs_explain, ptr)
      if (is.list(more) && !inherits(more, "vr_failure")) specs <- c(specs, more)
    }
    list(lines = sec$lines, inputs = sec$inputs, outputs = sec$outputs,
      compiled = sec$compiled > 0, calls_compiled = sec$compiled, calls_in_r = sec$in_r,
      why = sec$why, specs = specs)
  })
  n_compiled <- sum(vapply(secs, function(s) isTRUE(s$compiled), TRUE))
  cat(sprintf("  %d compiled section%s (of %d); the rest runs in R:\n", n_compiled,
    if (n_compiled == 1L) "" else "s", sum(lengths(secs) > 0L)))
  for (n in notes) {
    pad <- strrep("  ", n$depth + 2L)
    where <- .vr_lines(c(n$first_line, n$last_line))
    sec <- if (identical(n$kind, "section")) outline$sections[[n$section]]
    what <- switch(n$kind,
      section = if (is.null(sec)) "in R (its place in the function was not found)"
        else paste0("section ", n$section, ": compiled (inputs: ", .vr_names(sec$inputs),
          "; outputs: ", .vr_names(sec$outputs), "), ", sec$compiled, " call(s) compiled",
          if (sec$in_r > 0) paste0(", ", sec$in_r, " ran in R: ", sec$why) else ""),
      excluded = paste0("in R: ", n$construct, " (line ", n$line, ") does not compile"),
      no_loop = "in R: no loop (not worth a compiled call)",
      value = "in R: the function's value")
    cat(pad, where, ": ", what, "\n", sep = "")
    if (!is.null(sec)) .vr_explain_specs(secs[[n$section]]$specs, verbose, vrir, indent = paste0(pad, "  "))
  }
  secs
}

.vr_names <- function(x) if (length(x)) paste(x, collapse = ", ") else "none"
