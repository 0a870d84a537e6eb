math1(x) = (sqrt(x), exp(x), log(x), sin(x), cos(x), atan(x), abs(-x))

