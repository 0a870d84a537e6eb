bool_arith(a, b) = a + b, a * 3, -a

