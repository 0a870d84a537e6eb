/* Reference for bench/kernels/arc_distance.vrir: same algorithm and loop order. */
#include <math.h>
#include <stdint.h>

void arc_distance(const double *theta_1, const double *phi_1, const double *theta_2,
                  const double *phi_2, double *out, int64_t n) {
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        double st = sin((theta_2[i] - theta_1[i]) / 2.0);
        double sp = sin((phi_2[i] - phi_1[i]) / 2.0);
        double temp = st * st + (cos(theta_1[i]) * cos(theta_2[i])) * (sp * sp);
        out[i] = 2.0 * atan2(sqrt(temp), sqrt(1.0 - temp));
    }
}
