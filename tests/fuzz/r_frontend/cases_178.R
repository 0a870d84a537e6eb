ifelse_recycled <- function(x) ifelse(x > 0, c(1, 2), 0)

# Run-time recycling: a vector that holds one element at run time combines like R's
# length-1 operand; equal lengths element-wise; anything else raises.
