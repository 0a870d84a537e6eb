vcat_vectors(x, y) = [x; y]

