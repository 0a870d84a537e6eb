float32() = 1f0

