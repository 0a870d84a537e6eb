two_arg(y, x) = (atan(y, x), hypot(y, x), min(y, x), max(y, x))

