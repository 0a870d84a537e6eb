# What the R benchmarks run.R and array_style.R share (sourced by both, after record.R):
# the kernels of bench/r loaded and byte-compiled, the C references built and loaded, and
# the result check. `here` is bench/r.

# Sources bench/r/NAME.R for each name into the global environment and byte-compiles
# every function defined there, as R's JIT would (done up front so that R's first runs
# are not its compile). prange is left as it is: the package's, or the stand-in.
load_kernels <- function(names) {
  for (k in names) sys.source(file.path(here, paste0(k, ".R")), envir = globalenv())
  for (nm in ls(globalenv())) {
    obj <- get(nm, envir = globalenv())
    if (is.function(obj) && identical(environment(obj), globalenv()) && nm != "prange")
      assign(nm, compiler::cmpfun(obj), envir = globalenv())
  }
}

# The C references (bench/r/c_refs.c: bench/c's loops behind .Call wrappers), built with
# gcc -O2 -march=native into a shared object and loaded; cfun(name) is a symbol's address.
build_c_refs <- function() {
  build_dir <- tempfile("rbench-c")
  dir.create(build_dir)
  so <- file.path(build_dir, paste0("c_refs", .Platform$dynlib.ext))
  cmd <- sprintf("%s -O2 -march=native -ffp-contract=off -fpic -shared -I%s %s -o %s -lm",
    Sys.getenv("CC", "gcc"), shQuote(R.home("include")), shQuote(file.path(here, "c_refs.c")), shQuote(so))
  if (system(cmd) != 0) stop("building the C references failed: ", cmd)
  dyn.load(so)
}
# Native symbols looked up once: a lookup per call would cost more than small kernels.
c_symbols <- new.env()
cfun <- function(name) {
  if (is.null(c_symbols[[name]])) c_symbols[[name]] <- getNativeSymbolInfo(name, PACKAGE = "c_refs")$address
  c_symbols[[name]]
}

unif <- function(n, lo = 0, hi = 1) runif(n, lo, hi)

# Equal as all.equal() measures (relative tolerance), with the same type and dimensions.
same <- function(a, b, tol = 1e-12) {
  isTRUE(all.equal(a, b, tolerance = tol, check.attributes = TRUE)) &&
    identical(typeof(a), typeof(b)) && identical(dim(a), dim(b))
}

# The compiled version of a function by its name (the name matters: it is the compiled
# entry's).
compile_named <- function(name) eval(call("vr_compile", as.name(name), fallback = FALSE))

fmt <- function(x, d = 2) if (is.na(x)) "-" else formatC(x, format = "f", digits = d)
