cplx_partial <- function(r, i) complex(real = r, imag = i)
