function even_odd(n)
    return is_even(n)
end
