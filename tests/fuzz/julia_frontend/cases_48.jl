mask(x) = x[x .> 0]

