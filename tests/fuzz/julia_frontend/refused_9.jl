area(s::Int) = s * s

