lgl_arg <- function(b) if (b) 1L else 0L

