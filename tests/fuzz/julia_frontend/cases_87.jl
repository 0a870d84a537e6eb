uses_consts(x) = x * SCALE + LIMIT

