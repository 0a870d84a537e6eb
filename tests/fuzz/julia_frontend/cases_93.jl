function par_square!(out, x)
    Threads.@threads for i in eachindex(x)
        out[i] = x[i] * x[i]
    end
    return out
end

