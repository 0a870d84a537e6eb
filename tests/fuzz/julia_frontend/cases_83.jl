cumulative(x) = cumsum(x), cumprod(x)

