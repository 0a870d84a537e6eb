function gpu_scale(x, a)
    y = similar(x)
    @gpu begin
        for i in eachindex(x)
            y[i] = a * x[i]
        end
    end
    return y
end

