domain_sqrt(x) = sqrt(x)

