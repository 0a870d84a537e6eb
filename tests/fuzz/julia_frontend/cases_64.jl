squares(n) = [i^2 for i in 1:n]

