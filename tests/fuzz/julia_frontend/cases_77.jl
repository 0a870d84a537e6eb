domain_log(x) = log(x)

