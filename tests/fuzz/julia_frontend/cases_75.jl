to_int(x) = Int(x)

