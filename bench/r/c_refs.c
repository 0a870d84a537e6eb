/* .Call wrappers that let bench/r/run.R time the C reference of each kernel (bench/c/*.c,
   included here unchanged) on R's own vectors: each wrapper allocates its result as an R
   object, as the R and compiled versions do, and calls the reference. The references are
   row-major; R matrices are column-major, so run.R hands them R's data in the layout they
   expect (a transposed matrix is the same memory; growcut's arrays go through aperm() before
   timing) and the wrappers only swap dimensions where that suffices.
   Built by run.R: gcc -O2 -march=native into a shared object (R CMD SHLIB). */
#include <R.h>
#include <Rinternals.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../c/arc_distance.c"
#include "../c/black_scholes.c"
#include "../c/fib.c"
#include "../c/growcut.c"
#include "../c/julia_set.c"
#include "../c/mandelbrot.c"
#include "../c/matmul_loops.c"
#include "../c/nbody1d.c"
#include "../c/pi_sum.c"
#include "../c/rosen_der.c"
#include "../c/stencil5.c"

SEXP c_arc_distance(SEXP t1, SEXP p1, SEXP t2, SEXP p2) {
    R_xlen_t n = XLENGTH(t1);
    SEXP out = PROTECT(allocVector(REALSXP, n));
    arc_distance(REAL(t1), REAL(p1), REAL(t2), REAL(p2), REAL(out), (int64_t)n);
    UNPROTECT(1);
    return out;
}

/* out[i, j] of R (column-major) is the reference's out[i * n + j] (row-major): the
   reference writes int64 counts, copied into R's integer matrix transposed. */
SEXP c_julia_set(SEXP cr, SEXP ci, SEXP bound, SEXP lim, SEXP cutoff, SEXP n_) {
    int64_t n = (int64_t)asReal(n_);
    int64_t *counts = (int64_t *)R_alloc((size_t)(n * n), sizeof(int64_t));
    julia_set(asReal(cr), asReal(ci), asReal(bound), asReal(lim), (int64_t)asInteger(cutoff), counts, n);
    SEXP out = PROTECT(allocMatrix(INTSXP, (int)n, (int)n));
    int *o = INTEGER(out);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) o[i + j * n] = (int)counts[i * n + j];
    UNPROTECT(1);
    return out;
}

/* image_t is aperm(image, 3:1) (row-major h x w x 3), state_t likewise; the result is the
   next state in the same transposed layout (run.R turns it back for the check). */
SEXP c_growcut(SEXP image_t, SEXP state_t, SEXP radius) {
    SEXP d = getAttrib(image_t, R_DimSymbol);
    int64_t w = INTEGER(d)[1], h = INTEGER(d)[2];
    SEXP next = PROTECT(allocVector(REALSXP, XLENGTH(state_t)));
    memset(REAL(next), 0, sizeof(double) * (size_t)XLENGTH(state_t));
    setAttrib(next, R_DimSymbol, getAttrib(state_t, R_DimSymbol));
    growcut(REAL(image_t), REAL(state_t), REAL(next), (int64_t)asInteger(radius), h, w);
    UNPROTECT(1);
    return next;
}

SEXP c_rosen_der(SEXP x) {
    R_xlen_t n = XLENGTH(x);
    SEXP der = PROTECT(allocVector(REALSXP, n));
    REAL(der)[0] = 0.0;
    rosen_der(REAL(x), REAL(der), (int64_t)n);
    UNPROTECT(1);
    return der;
}

/* An m x n column-major matrix is the reference's n x m row-major one; the stencil is
   symmetric in its two dimensions. */
SEXP c_stencil5(SEXP a) {
    int m = nrows(a), n = ncols(a);
    SEXP b = PROTECT(allocMatrix(REALSXP, m, n));
    memset(REAL(b), 0, sizeof(double) * (size_t)m * (size_t)n);
    stencil5(REAL(a), REAL(b), (int64_t)n, (int64_t)m);
    UNPROTECT(1);
    return b;
}

/* Column-major C = A B is row-major C^T = B^T A^T: the reference gets b as its left operand. */
SEXP c_matmul_loops(SEXP a, SEXP b) {
    int m = nrows(a), p = ncols(a), n = ncols(b);
    SEXP c = PROTECT(allocMatrix(REALSXP, m, n));
    matmul_loops(REAL(b), REAL(a), REAL(c), (int64_t)n, (int64_t)p, (int64_t)m);
    UNPROTECT(1);
    return c;
}

/* The reference updates x and v in place: it works on the result's two columns. */
SEXP c_nbody1d(SEXP x, SEXP v, SEXP m, SEXP dt, SEXP eps) {
    R_xlen_t n = XLENGTH(x);
    SEXP res = PROTECT(allocMatrix(REALSXP, (int)n, 2));
    double *rx = REAL(res), *rv = REAL(res) + n;
    memcpy(rx, REAL(x), sizeof(double) * (size_t)n);
    memcpy(rv, REAL(v), sizeof(double) * (size_t)n);
    double *acc = (double *)R_alloc((size_t)n, sizeof(double));
    nbody1d(rx, rv, REAL(m), acc, asReal(dt), asReal(eps), (int64_t)n);
    UNPROTECT(1);
    return res;
}

SEXP c_black_scholes(SEXP s, SEXP x, SEXP t, SEXP r, SEXP v) {
    R_xlen_t n = XLENGTH(s);
    SEXP out = PROTECT(allocMatrix(REALSXP, (int)n, 2));
    black_scholes(REAL(s), REAL(x), REAL(t), asReal(r), asReal(v), REAL(out), REAL(out) + n, (int64_t)n);
    UNPROTECT(1);
    return out;
}

SEXP c_pi_sum(SEXP reps, SEXP n) {
    return ScalarReal(pi_sum((int64_t)asReal(reps), (int64_t)asReal(n)));
}

SEXP c_mandelbrot(SEXP n_) {
    int n = (int)asReal(n_);
    SEXP out = PROTECT(allocMatrix(INTSXP, n, n));
    mandelbrot(INTEGER(out), (int64_t)n);
    UNPROTECT(1);
    return out;
}

SEXP c_fib(SEXP n) {
    return ScalarInteger(fib(asInteger(n)));
}
