lambda(x) = map(v -> v^2, x)

