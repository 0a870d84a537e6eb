sq(v) = v * v

