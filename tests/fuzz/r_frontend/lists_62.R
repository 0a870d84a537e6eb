record_field_at <- function(bodies, k) bodies[[k]]$mass * 2

# A loop over the names of a list whose elements differ in kind; a data frame's columns
# by name.
