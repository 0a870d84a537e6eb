strings(x) = string(x)

