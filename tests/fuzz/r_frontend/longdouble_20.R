ld_rowmeans <- function(m) rowMeans(m)

# A reduction of an element-wise chain (the optimizer fuses the chain, keeping the
# long double accumulator).
