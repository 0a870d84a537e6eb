area(r::Float64) = pi * r^2
