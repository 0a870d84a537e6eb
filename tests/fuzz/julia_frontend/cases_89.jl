limits() = typemax(Int), typemin(Int)

