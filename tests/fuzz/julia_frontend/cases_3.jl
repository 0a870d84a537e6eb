int_ops(a, b) = (a ÷ b, a % b, mod(a, b), fld(a, b), cld(a, b))

