function broken(x)
    y = (x +
end

