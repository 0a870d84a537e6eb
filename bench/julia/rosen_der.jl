# rosen_der (bench/kernels/rosen_der.vrir, bench/c/rosen_der.c) in Julia: the gradient of
# the Rosenbrock function (length(x) >= 3), into der.
function rosen_der!(x, der)
    n = length(x)
    Threads.@threads for i in 2:n-1
        xm = x[i-1]
        xi = x[i]
        xp = x[i+1]
        der[i] = 200 * (xi - xm * xm) - (400 * (xp - xi * xi)) * xi - 2 * (1 - xi)
    end
    der[1] = (-400 * x[1]) * (x[2] - x[1] * x[1]) - 2 * (1 - x[1])
    der[end] = 200 * (x[end] - x[end-1] * x[end-1])
    return nothing
end

function check(x, der)
    rosen_der!(x, der)
    return der
end
