/* Reference for bench/r/fib.R (JuliaLang microbenchmark fib): doubly recursive Fibonacci. */
#include <stdint.h>

int32_t fib(int32_t n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
