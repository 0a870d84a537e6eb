# nbody1d (bench/kernels/nbody1d.vrir, bench/c/nbody1d.c) in Julia: one time step of n
# bodies on a line: accelerations from all pairs (in parallel), then velocities and
# positions by explicit Euler, all in place.
function nbody1d!(x, v, m, acc, dt, eps)
    n = length(x)
    Threads.@threads for i in 1:n
        s = 0.0
        for j in 1:n
            d = x[j] - x[i]
            r2 = d * d + eps
            s += (m[j] * d) / (r2 * sqrt(r2))
        end
        acc[i] = s
    end
    for i in 1:n
        v[i] += acc[i] * dt
        x[i] += v[i] * dt
    end
    return nothing
end

function check(x, v, m, acc, dt, eps)
    nbody1d!(x, v, m, acc, dt, eps)
    return x, v, acc
end
