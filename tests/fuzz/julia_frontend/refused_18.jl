rank_change(x) = x .+ [1.0 2.0]
