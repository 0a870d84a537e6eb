function iter_sees_writes(x)
    s = 0.0
    for v in x
        x[end] = 100.0
        s += v
    end
    return s
end

# ---- top-level code the compiler steps over ----
@test fib(10) == 55
@time squares(3)
println("loaded")
x0 = rand(3)

# Julia orders -0.0 below 0.0 in max and min; clamp returns x unless it lies outside.
