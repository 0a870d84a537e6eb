# growcut (bench/kernels/growcut.vrir, bench/c/growcut.c) in Julia: one step of the
# GrowCut cellular automaton. image is h x w x 3, state and state_next h x w x 2 (label,
# strength); returns the number of changes. Columns run in parallel; each counts its
# own changes (no atomics), summed at the end.
function growcut!(image, state, state_next, radius)
    h = size(image, 1)
    w = size(image, 2)
    changes = zeros(Int, w)
    sqrt_3 = sqrt(3.0)
    Threads.@threads for j in 1:w
        c = 0
        for i in 1:h
            winning = state[i, j, 1]
            defense = state[i, j, 2]
            for jj in max(j - radius, 1):min(j + radius, w)
                for ii in max(i - radius, 1):min(i + radius, h)
                    if ii == i && jj == j
                        continue
                    end
                    s = 0.0
                    for k in 1:3
                        d = image[i, j, k] - image[ii, jj, k]
                        s += d * d
                    end
                    gval = 1.0 - sqrt(s) / sqrt_3
                    attack = gval * state[ii, jj, 2]
                    if attack > defense
                        defense = attack
                        winning = state[ii, jj, 1]
                        c += 1
                    end
                end
            end
            state_next[i, j, 1] = winning
            state_next[i, j, 2] = defense
        end
        changes[j] = c
    end
    return sum(changes)
end

function check(image, state, state_next, radius)
    c = growcut!(image, state, state_next, radius)
    return c, state_next
end
