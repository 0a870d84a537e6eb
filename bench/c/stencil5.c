/* Reference for bench/kernels/stencil5.vrir: a and b are m x n, row-major. */
#include <stdint.h>

void stencil5(const double *a, double *b, int64_t m, int64_t n) {
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 1; i < m - 1; i++) {
        for (int64_t j = 1; j < n - 1; j++) {
            b[i * n + j] = 0.2 * ((((a[i * n + j] + a[(i - 1) * n + j]) + a[(i + 1) * n + j])
                                   + a[i * n + j - 1]) + a[i * n + j + 1]);
        }
    }
}
