# arc_distance (bench/kernels/arc_distance.vrir, bench/c/arc_distance.c) in Julia:
# great-circle distances of point pairs, written into `out` (Julia's convention: the
# function mutates its last argument).
function arc_distance!(theta_1, phi_1, theta_2, phi_2, out)
    n = length(out)
    Threads.@threads for i in 1:n
        st = sin((theta_2[i] - theta_1[i]) / 2)
        sp = sin((phi_2[i] - phi_1[i]) / 2)
        temp = st * st + (cos(theta_1[i]) * cos(theta_2[i])) * (sp * sp)
        out[i] = 2 * atan(sqrt(temp), sqrt(1 - temp))
    end
    return nothing
end

function check(theta_1, phi_1, theta_2, phi_2, out)
    arc_distance!(theta_1, phi_1, theta_2, phi_2, out)
    return out
end
