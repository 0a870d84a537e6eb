bcast(x, y) = x .+ 2 .* y

