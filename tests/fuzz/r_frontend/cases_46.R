cplx <- function(a, b) {
  z <- complex(real = a, imaginary = b)
  w <- z * z + 2i
  c(Re(w), Im(w), Mod(z))
}

