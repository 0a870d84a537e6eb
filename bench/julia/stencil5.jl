# stencil5 (bench/kernels/stencil5.vrir, bench/c/stencil5.c) in Julia: 5-point average
# of the interior of a into b; the border of b is left as it is. Columns outermost; the
# sum's order is the C reference's.
function stencil5!(a, b)
    m = size(a, 1)
    n = size(a, 2)
    Threads.@threads for j in 2:n-1
        for i in 2:m-1
            b[i, j] = 0.2 * (a[i, j] + a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1])
        end
    end
    return nothing
end

function check(a, b)
    stencil5!(a, b)
    return b
end
