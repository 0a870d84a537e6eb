# What the R benchmarks run.R, array_style.R and first_call.R share (sourced after
# record.R): the kernels of bench/r loaded and byte-compiled, the C references built and
# loaded, the result check and the array-style kernels' list. `here` is bench/r.

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

# The kernels with an array-style version (bench/r/NAME.R's `NAME_vec`), for
# array_style.R and first_call.R: name, loop version, array-style version, size (the
# quick size with `quick`), inputs from a size, the C reference's call.
array_style_kernels <- function(quick) {
  K <- function(name, loop, vec, size, quick_size, inputs, c_call) {
    list(name = name, loop = loop, vec = vec, size = if (quick) quick_size else size,
      inputs = inputs, c_call = c_call)
  }
  list(
    K("arc_distance", "arc_distance", "arc_distance_vec", 400000, 100,
      function(n) list(unif(n, -1.5, 1.5), unif(n, -1.5, 1.5), unif(n, -1.5, 1.5), unif(n, -1.5, 1.5)),
      function(a) .Call(cfun("c_arc_distance"), a[[1]], a[[2]], a[[3]], a[[4]])),
    K("rosen_der", "rosen_der", "rosen_der_vec", 4000000, 100,
      function(n) list(unif(n, 0, 2)),
      function(a) .Call(cfun("c_rosen_der"), a[[1]])),
    K("black_scholes", "black_scholes", "black_scholes_vec", 1000000, 100,
      function(n) list(5 + unif(n) * 25, 1 + unif(n) * 99, 0.25 + unif(n) * 9.75, 0.02, 0.3),
      function(a) .Call(cfun("c_black_scholes"), a[[1]], a[[2]], a[[3]], a[[4]], a[[5]])),
    K("stencil5", "stencil5", "stencil5_vec", 2000, 10,
      function(n) list(matrix(unif(n * n), n, n)),
      function(a) .Call(cfun("c_stencil5"), a[[1]])),
    K("matmul_loops", "matmul_loops", "matmul_vec", 300, 6,
      function(n) list(matrix(unif(n * n) - 0.5, n, n), matrix(unif(n * n) - 0.5, n, n)),
      function(a) .Call(cfun("c_matmul_loops"), a[[1]], a[[2]])),
    K("nbody1d", "nbody1d", "nbody1d_vec", 3000, 8,
      function(n) list(unif(n) * 100, unif(n) - 0.5, unif(n) + 0.5, 0.01, 1e-3),
      function(a) .Call(cfun("c_nbody1d"), a[[1]], a[[2]], a[[3]], a[[4]], a[[5]])),
    K("pi_sum", "pi_sum", "pi_sum_vec", 10000, 100,
      function(n) list(500, n),
      function(a) .Call(cfun("c_pi_sum"), a[[1]], a[[2]]))
  )
}
