function zip_dot(x, y)
    s = 0.0
    for (a, b) in zip(x, y)
        s += a * b
    end
    return s
end

# ---- parallel and GPU markers ----
