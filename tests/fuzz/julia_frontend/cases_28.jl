is_even(n) = n == 0 ? true : is_odd(n - 1)
