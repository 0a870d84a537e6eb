shifts(a, n) = (a << n, a >> n, a >>> n)

