# julia_set (bench/kernels/julia_set.vrir, bench/c/julia_set.c) in Julia: escape counts
# of z^2 + c on an n x n grid over [-bound, bound]^2, in real arithmetic as the C
# reference does. Rows outermost, as in the VRIR and C kernels: the escape-time loop
# dominates (n^2 stores are nothing beside it), and the order the cells are visited in
# changes how well the branch predictor follows the escape counts (columns outermost
# measured about 1.3x slower serially on a 2-core machine), so the same order keeps the
# comparison one of compiled code.
function julia_count(zr, zi, cr, ci, lim, cutoff)
    count = 0
    while zr * zr + zi * zi < lim * lim && count < cutoff
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        count += 1
    end
    return count
end

function julia_set!(cr, ci, bound, lim, cutoff, out)
    n = size(out, 1)
    step = (2.0 * bound) / (n - 1)
    Threads.@threads for i in 1:n
        x = -bound + (i - 1) * step
        for j in 1:n
            y = -bound + (j - 1) * step
            out[i, j] = julia_count(x, y, cr, ci, lim, cutoff)
        end
    end
    return nothing
end

function check(cr, ci, bound, lim, cutoff, out)
    julia_set!(cr, ci, bound, lim, cutoff, out)
    return out
end
