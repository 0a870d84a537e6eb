dotted_fn(x) = sin.(x) .+ cos.(x)

