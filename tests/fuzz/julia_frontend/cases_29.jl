is_odd(n) = n == 0 ? false : is_even(n - 1)

