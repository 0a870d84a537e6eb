float_pow(x, y) = x^y

