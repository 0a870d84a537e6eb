# black_scholes (bench/kernels/black_scholes.vrir, bench/c/black_scholes.c) in Julia:
# call and put prices of European options, with the polynomial normal CDF.
function cnd(d)
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    r = (0.3989422804014327 * exp((-0.5 * d) * d)) *
        (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    if d > 0
        r = 1.0 - r
    end
    return r
end

function black_scholes!(s, x, t, r, v, call_out, put_out)
    n = length(s)
    Threads.@threads for i in 1:n
        si = s[i]
        xi = x[i]
        ti = t[i]
        sqrt_t = sqrt(ti)
        d1 = (log(si / xi) + (r + (0.5 * v) * v) * ti) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        c1 = cnd(d1)
        c2 = cnd(d2)
        disc = xi * exp(-r * ti)
        call_out[i] = si * c1 - disc * c2
        put_out[i] = disc * (1.0 - c2) - si * (1.0 - c1)
    end
    return nothing
end

function check(s, x, t, r, v, call_out, put_out)
    black_scholes!(s, x, t, r, v, call_out, put_out)
    return call_out, put_out
end
