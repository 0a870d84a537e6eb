# Sieve of Eratosthenes as R tutorials write it: a logical vector from rep(TRUE, n),
# the multiples of each prime struck out at once by assigning FALSE through
# seq(p^2, n, p), the primes returned by which().
# corpus-call: sieve(200000)

sieve <- function(n) {
    is_prime <- rep(TRUE, n)
    is_prime[1] <- FALSE
    for (p in 2:floor(sqrt(n))) {
        if (is_prime[p]) is_prime[seq(p^2, n, p)] <- FALSE
    }
    which(is_prime)
}
