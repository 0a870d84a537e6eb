/* Reference for bench/r/pi_sum.R (JuliaLang microbenchmark pi_sum): reps times, the sum of
   1/k^2 for k = 1..n. */
#include <stdint.h>

double pi_sum(int64_t reps, int64_t n) {
    double s = 0.0;
    for (int64_t j = 0; j < reps; j++) {
        s = 0.0;
        for (int64_t k = 1; k <= n; k++) s = s + 1.0 / ((double)k * (double)k);
    }
    return s;
}
