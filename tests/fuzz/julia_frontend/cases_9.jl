inv_pow(x) = x^-1 + x^-2

