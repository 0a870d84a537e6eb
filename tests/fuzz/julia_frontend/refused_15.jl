reads_global(x) = x + counter

