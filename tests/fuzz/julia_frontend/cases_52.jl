typed_empty() = length(Float64[])

