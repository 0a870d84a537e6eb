/* Reference for bench/kernels/black_scholes.vrir. */
#include <math.h>
#include <stdint.h>

static double cnd(double d) {
    double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double r = (0.3989422804014327 * exp((-0.5 * d) * d)) *
               (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
    if (d > 0.0) r = 1.0 - r;
    return r;
}

void black_scholes(const double *s, const double *x, const double *t, double r, double v,
                   double *call_out, double *put_out, int64_t n) {
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        double si = s[i], xi = x[i], ti = t[i];
        double sqrt_t = sqrt(ti);
        double d1 = (log(si / xi) + (r + (0.5 * v) * v) * ti) / (v * sqrt_t);
        double d2 = d1 - v * sqrt_t;
        double c1 = cnd(d1), c2 = cnd(d2);
        double disc = xi * exp(-r * ti);
        call_out[i] = si * c1 - disc * c2;
        put_out[i] = disc * (1.0 - c2) - si * (1.0 - c1);
    }
}
