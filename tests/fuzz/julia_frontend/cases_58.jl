at_dot(x) = @. x^2 + 3x

