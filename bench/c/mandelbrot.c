/* Reference for bench/r/mandelbrot.R (JuliaLang microbenchmark mandel/mandelperf) over C99
   complex numbers: escape counts (at most 80) on an n x n grid of [-2, 0.5] x [-1, 1];
   out is n x n, column-major (out[i + j*n] for real part i, imaginary part j), as R's. */
#include <complex.h>
#include <stdint.h>

static int32_t mandel(double complex z) {
    double complex c = z;
    int32_t maxiter = 80;
    for (int32_t n = 1; n <= maxiter; n++) {
        if (cabs(z) > 2.0) return n - 1;
        z = z * z + c;
    }
    return maxiter;
}

void mandelbrot(int32_t *out, int64_t n) {
    for (int64_t j = 0; j < n; j++) {
        double im = -1.0 + 2.0 * (double)j / (double)(n - 1);
        for (int64_t i = 0; i < n; i++) {
            double re = -2.0 + 2.5 * (double)i / (double)(n - 1);
            out[i + j * n] = mandel(re + im * I);
        }
    }
}
