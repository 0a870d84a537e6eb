# matmul_loops (bench/kernels/matmul_loops.vrir, bench/c/matmul_loops.c) in Julia: the
# textbook triple loop (not `*`), a dot product per element, into c.
function matmul_loops!(a, b, c)
    m = size(a, 1)
    p = size(a, 2)
    n = size(b, 2)
    Threads.@threads for j in 1:n
        for i in 1:m
            s = 0.0
            for k in 1:p
                s += a[i, k] * b[k, j]
            end
            c[i, j] = s
        end
    end
    return nothing
end

function check(a, b, c)
    matmul_loops!(a, b, c)
    return c
end
