/* Reference for bench/kernels/growcut.vrir: image h x w x 3, state h x w x 2, row-major. */
#include <math.h>
#include <stdint.h>

int64_t growcut(const double *image, const double *state, double *state_next, int64_t radius,
                int64_t h, int64_t w) {
    int64_t changes = 0;
    double sqrt_3 = sqrt(3.0);
    /* The loop the VRIR kernel runs as a parfor (vr-bench's OpenMP column). */
    #pragma omp parallel for reduction(+ : changes)
    for (int64_t j = 0; j < w; j++) {
        for (int64_t i = 0; i < h; i++) {
            double winning = state[(i * w + j) * 2 + 0];
            double defense = state[(i * w + j) * 2 + 1];
            int64_t jj_hi = (j + radius + 1 < w ? j + radius + 1 : w);
            int64_t ii_hi = (i + radius + 1 < h ? i + radius + 1 : h);
            for (int64_t jj = (j - radius > 0 ? j - radius : 0); jj < jj_hi; jj++) {
                for (int64_t ii = (i - radius > 0 ? i - radius : 0); ii < ii_hi; ii++) {
                    if (ii == i && jj == j) continue;
                    double s = 0.0;
                    for (int64_t k = 0; k < 3; k++) {
                        double d = image[(i * w + j) * 3 + k] - image[(ii * w + jj) * 3 + k];
                        s = s + d * d;
                    }
                    double gval = 1.0 - sqrt(s) / sqrt_3;
                    double attack = gval * state[(ii * w + jj) * 2 + 1];
                    if (attack > defense) {
                        defense = attack;
                        winning = state[(ii * w + jj) * 2 + 0];
                        changes++;
                    }
                }
            }
            state_next[(i * w + j) * 2 + 0] = winning;
            state_next[(i * w + j) * 2 + 1] = defense;
        }
    }
    return changes;
}
