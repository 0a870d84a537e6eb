/* STREAM's triad (McCalpin): a[i] = b[i] + s * c[i] over arrays far larger than the
 * caches: the memory bandwidth a parallel loop's threads can sustain, the yardstick of
 * vr-bench's memory-bound kernels. The arrays are first touched by the same static
 * schedule that later runs the triad, so each thread's pages are on its own node. */
#include <stdint.h>

void stream_init(double *a, double *b, double *c, int64_t n) {
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
}

void stream_triad(double *a, const double *b, const double *c, int64_t n, double s) {
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        a[i] = b[i] + s * c[i];
    }
}
