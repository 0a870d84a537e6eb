table(m, n) = [i + 10j for i in 1:m, j in 1:n]

