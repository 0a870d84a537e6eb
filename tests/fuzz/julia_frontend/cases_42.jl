function swap_ends!(v)
    v[1], v[end] = v[end], v[1]
    return v
end

