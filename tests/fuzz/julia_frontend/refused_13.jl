fields(z) = z.re

