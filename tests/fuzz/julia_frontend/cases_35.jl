last_two(x) = x[end-1:end]

