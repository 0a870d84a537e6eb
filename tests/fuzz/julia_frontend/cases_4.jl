float_mods(x, y) = (x % y, mod(x, y), rem(x, y))

