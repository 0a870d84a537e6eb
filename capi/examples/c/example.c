/* A C host of Velociraptor: load a VRIR module, compile functions for argument types,
 * call them on C arrays (in place, no copy), get a result array back, and handle an
 * error. Exits 0 when every result matches what is computed here by hand.
 *
 * Build and run (scripts/test.sh does this, also under valgrind):
 *   cargo build -p velociraptor-capi
 *   gcc -Wall -Wextra -Werror -Icapi/include capi/examples/c/example.c \
 *       -Ltarget/debug -lvelociraptor_capi -Wl,-rpath,$PWD/target/debug -o target/example_c
 *   target/example_c capi/examples/example.vrir
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "velociraptor.h"

/* Print the last error and fail: every entry point returns a status. */
#define CHECK(call)                                                                    \
    do {                                                                               \
        VrStatus st_ = (call);                                                         \
        if (st_ != VR_OK) {                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, vr_status_name(st_),         \
                    vr_last_error_message());                                          \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { perror("read"); exit(1); }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A descriptor of a 1-d double array with stride `stride` (in elements). */
static VrValue vector(double *data, int64_t n, int64_t stride, int32_t layout) {
    VrValue v;
    memset(&v, 0, sizeof v);
    v.kind = VR_KIND_ARRAY;
    v.array.data = data;
    v.array.elem = VR_F64;
    v.array.ndims = 1;
    v.array.dims[0] = n;
    v.array.strides[0] = stride;
    v.array.layout = layout;
    v.array.flags = VR_ARRAY_WRITEABLE;
    return v;
}

static VrValue f64_scalar(double x) {
    VrValue v;
    memset(&v, 0, sizeof v);
    v.kind = VR_KIND_SCALAR;
    v.elem = VR_F64;
    v.scalar.as_f64 = x;
    return v;
}

static VrValue i64_scalar(int64_t x) {
    VrValue v;
    memset(&v, 0, sizeof v);
    v.kind = VR_KIND_SCALAR;
    v.elem = VR_I64;
    v.scalar.as_i64 = x;
    return v;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s MODULE.vrir\n", argv[0]); return 2; }
    if (vr_abi_version() != VR_ABI_VERSION) { fprintf(stderr, "ABI mismatch\n"); return 1; }
    int failures = 0;

    /* A context: configuration as key/value strings. No disk cache for this example. */
    const char *keys[] = {"opt_level", "cache_dir"};
    const char *values[] = {"2", "off"};
    VrContext *ctx = NULL;
    CHECK(vr_context_create(keys, values, 2, &ctx));

    size_t len;
    char *src = read_file(argv[1], &len);
    VrModule *module = NULL;
    CHECK(vr_module_load(ctx, src, len, VR_FORMAT_AUTO, &module));
    free(src);

    /* saxpy on x = every other element of xs (stride 2, zero copy) and y in place. */
    VrType saxpy_types[3] = {
        {VR_KIND_SCALAR, VR_F64, 0, 0},
        {VR_KIND_ARRAY, VR_F64, 1, VR_LAYOUT_STRIDED},
        {VR_KIND_ARRAY, VR_F64, 1, VR_LAYOUT_ROW},
    };
    VrFunction *saxpy = NULL;
    CHECK(vr_compile(module, "saxpy", saxpy_types, 3, &saxpy));
    double xs[8] = {1, -1, 2, -1, 3, -1, 4, -1};
    double ys[4] = {10, 20, 30, 40};
    VrValue args[3] = {f64_scalar(0.5), vector(xs, 4, 2, VR_LAYOUT_STRIDED),
                       vector(ys, 4, 1, VR_LAYOUT_ROW)};
    CHECK(vr_call(saxpy, args, 3, NULL, 0));
    const double want_y[4] = {10.5, 21, 31.5, 42};
    for (int i = 0; i < 4; i++)
        if (ys[i] != want_y[i]) { fprintf(stderr, "y[%d] = %g, want %g\n", i, ys[i], want_y[i]); failures++; }

    /* A function that returns a new column-major matrix: the library allocates it
     * (this host registered no alloc_array hook) and vr_array_free releases it. */
    VrType sq_types[1] = {{VR_KIND_ARRAY, VR_F64, 2, VR_LAYOUT_COL}};
    VrFunction *sq = NULL;
    CHECK(vr_compile(module, "square_plus_row", sq_types, 1, &sq));
    double m[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3, column-major: [[1, 3, 5], [2, 4, 6]] */
    VrValue marg;
    memset(&marg, 0, sizeof marg);
    marg.kind = VR_KIND_ARRAY;
    marg.array = vector(m, 2, 1, VR_LAYOUT_COL).array;
    marg.array.ndims = 2;
    marg.array.dims[1] = 3;
    marg.array.strides[1] = 2;
    VrValue result;
    CHECK(vr_call(sq, &marg, 1, &result, 1));
    /* out[i][j] = m[i][j]^2 + i */
    const double want_m[2][3] = {{1, 9, 25}, {5, 17, 37}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            const double *out = result.array.data;
            double got = out[i * result.array.strides[0] + j * result.array.strides[1]];
            if (got != want_m[i][j]) { fprintf(stderr, "out[%d][%d] = %g\n", i, j, got); failures++; }
        }
    vr_array_free(&result.array);

    /* An error: index 9 of a 4-element array. A status and a structured error come
     * back; the process goes on. */
    VrType at_types[2] = {{VR_KIND_ARRAY, VR_F64, 1, VR_LAYOUT_STRIDED}, {VR_KIND_SCALAR, VR_I64, 0, 0}};
    VrFunction *at = NULL;
    CHECK(vr_compile(module, "at", at_types, 2, &at));
    VrValue at_args[2] = {vector(ys, 4, 1, VR_LAYOUT_STRIDED), i64_scalar(9)};
    VrValue at_result;
    VrStatus st = vr_call(at, at_args, 2, &at_result, 1);
    VrErrorInfo info;
    vr_last_error(&info);
    if (st != VR_OUT_OF_BOUNDS || info.index != 9 || info.bound != 4 ||
        strcmp(info.function, "at") != 0 || strcmp(info.variable, "x") != 0) {
        fprintf(stderr, "expected an out-of-bounds error, got %d: %s\n", (int)st, vr_last_error_message());
        failures++;
    } else {
        printf("error reported as expected: %s\n", info.message);
    }

    /* Inspect what was compiled. */
    char *ir = NULL;
    CHECK(vr_function_dump(at, VR_DUMP_VRIR_TEXT, &ir));
    printf("compiled VRIR of `at`:\n%s\n", ir);
    vr_string_free(ir);

    vr_function_free(at);
    vr_function_free(sq);
    vr_function_free(saxpy);
    vr_module_free(module);
    vr_context_destroy(ctx);
    printf(failures ? "FAILED\n" : "ok: C example\n");
    return failures ? 1 : 0;
}
