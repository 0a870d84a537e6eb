/* Reference for bench/kernels/julia_set.vrir: out is n x n, row-major. */
#include <stdint.h>

static int64_t julia_count(double zr, double zi, double cr, double ci, double lim, int64_t cutoff) {
    int64_t count = 0;
    while (zr * zr + zi * zi < lim * lim && count < cutoff) {
        double t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        count++;
    }
    return count;
}

void julia_set(double cr, double ci, double bound, double lim, int64_t cutoff, int64_t *out, int64_t n) {
    double step = (2.0 * bound) / (double)(n - 1);
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        double x = -bound + (double)i * step;
        for (int64_t j = 0; j < n; j++) {
            double y = -bound + (double)j * step;
            out[i * n + j] = julia_count(x, y, cr, ci, lim, cutoff);
        }
    }
}
