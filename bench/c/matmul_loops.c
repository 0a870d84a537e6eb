/* Reference for bench/kernels/matmul_loops.vrir: a is m x p, b is p x n, c is m x n, row-major. */
#include <stdint.h>

void matmul_loops(const double *a, const double *b, double *c, int64_t m, int64_t p, int64_t n) {
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int64_t k = 0; k < p; k++) s = s + a[i * p + k] * b[k * n + j];
            c[i * n + j] = s;
        }
    }
}
