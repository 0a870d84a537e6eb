function in_place!(y, x)
    y .= x .* 2
    y .+= 1
    return y
end

