t(y, y) = 0
