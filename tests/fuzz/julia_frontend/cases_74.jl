conversions(x) = (Int(round(x)), round(x), floor(Int, x), ceil(Int, x), trunc(Int, x), Float64(3))

