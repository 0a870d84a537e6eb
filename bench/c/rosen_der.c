/* Reference for bench/kernels/rosen_der.vrir (n >= 2). */
#include <stdint.h>

void rosen_der(const double *x, double *der, int64_t n) {
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 1; i < n - 1; i++) {
        double xm = x[i - 1], xi = x[i], xp = x[i + 1];
        der[i] = 200.0 * (xi - xm * xm) - (400.0 * (xp - xi * xi)) * xi - 2.0 * (1.0 - xi);
    }
    der[0] = (-400.0 * x[0]) * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0]);
    der[n - 1] = 200.0 * (x[n - 1] - x[n - 2] * x[n - 2]);
}
