function g(x)
    continue
    return x
end
