vdot(x, y) = dot(x, y)

