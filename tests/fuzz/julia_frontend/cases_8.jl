int_pow(x, n) = x^n

