// Registers the package's .Call entry points: those bindings/r generates with extendr
// (`extendr_module!` in src/lib.rs, `wrap__` + the Rust name) and the hand-written hot
// path `vr_rs_call_fast`. Written out here, not by extendr's own R_init, because R keeps
// one table per library: a function added to `extendr_module!` is added here too.
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

extern SEXP wrap__vr_rs_configure(SEXP, SEXP, SEXP, SEXP, SEXP);
extern SEXP wrap__vr_rs_new(SEXP, SEXP, SEXP);
extern SEXP wrap__vr_rs_explain(SEXP);
extern SEXP wrap__vr_rs_sections(SEXP, SEXP);
extern SEXP wrap__vr_rs_stats(void);
extern SEXP wrap__vr_rs_panic_for_test(void);
extern SEXP vr_rs_call_fast(SEXP, SEXP);

static const R_CallMethodDef call_entries[] = {
    {"wrap__vr_rs_configure", (DL_FUNC) &wrap__vr_rs_configure, 5},
    {"wrap__vr_rs_new", (DL_FUNC) &wrap__vr_rs_new, 3},
    {"wrap__vr_rs_explain", (DL_FUNC) &wrap__vr_rs_explain, 1},
    {"wrap__vr_rs_sections", (DL_FUNC) &wrap__vr_rs_sections, 2},
    {"wrap__vr_rs_stats", (DL_FUNC) &wrap__vr_rs_stats, 0},
    {"wrap__vr_rs_panic_for_test", (DL_FUNC) &wrap__vr_rs_panic_for_test, 0},
    {"vr_rs_call_fast", (DL_FUNC) &vr_rs_call_fast, 2},
    {NULL, NULL, 0}
};

void R_init_velociraptor(DllInfo *dll) {
    R_registerRoutines(dll, NULL, call_entries, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
}
