scalar_sin(x) = sin(x)

