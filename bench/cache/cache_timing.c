/* Compile latency with and without the on-disk code cache, through the C API: for each
 * VRIR file given, load it and compile every function for its declared parameter types;
 * print one line "file ms compiles disk_hits" (wall time of load + compile). Run it
 * once with an empty cache directory (first process: compile and store) and again (second
 * process: load machine code); scripts/bench_cache.sh does both and prints the table.
 *
 * Usage: cache_timing CACHE_DIR|off FILE.vrir ... */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "velociraptor.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void check(VrStatus st, const char *what) {
    if (st != VR_OK) { fprintf(stderr, "%s: %s\n", what, vr_last_error_message()); exit(1); }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s CACHE_DIR|off FILE.vrir ...\n", argv[0]); return 2; }
    for (int a = 2; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) { perror(argv[a]); return 1; }
        static char src[1 << 20];
        size_t len = fread(src, 1, sizeof src, f);
        fclose(f);
        /* A fresh context per file: nothing comes from the in-process cache. */
        const char *keys[] = {"cache_dir"};
        const char *values[] = {argv[1]};
        VrContext *ctx;
        check(vr_context_create(keys, values, 1, &ctx), "context");
        double t0 = now_ms();
        VrModule *m;
        check(vr_module_load(ctx, src, len, VR_FORMAT_AUTO, &m), argv[a]);
        size_t n;
        check(vr_module_function_count(m, &n), "count");
        for (size_t i = 0; i < n; i++) {
            char *name;
            check(vr_module_function_name(m, i, &name), "name");
            VrType params[64], results[64];
            size_t np, nr;
            check(vr_module_signature(m, name, params, 64, &np, results, 64, &nr), "signature");
            VrFunction *fn;
            check(vr_compile(m, name, params, np, &fn), name);
            vr_function_free(fn);
            vr_string_free(name);
        }
        double ms = now_ms() - t0;
        VrCacheStats s;
        check(vr_context_stats(ctx, &s), "stats");
        printf("%s %.1f %llu %llu\n", argv[a], ms, (unsigned long long)s.compiles,
               (unsigned long long)s.disk_hits);
        vr_module_free(m);
        vr_context_destroy(ctx);
    }
    return 0;
}
