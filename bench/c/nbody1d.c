/* Reference for bench/kernels/nbody1d.vrir. */
#include <math.h>
#include <stdint.h>

void nbody1d(double *x, double *v, const double *m, double *acc, double dt, double eps, int64_t n) {
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t j = 0; j < n; j++) {
            double d = x[j] - x[i];
            double r2 = d * d + eps;
            s = s + (m[j] * d) / (r2 * sqrt(r2));
        }
        acc[i] = s;
    }
    for (int64_t i = 0; i < n; i++) {
        v[i] = v[i] + acc[i] * dt;
        x[i] = x[i] + v[i] * dt;
    }
}
