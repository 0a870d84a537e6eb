user_bcast(x) = sq.(x)

