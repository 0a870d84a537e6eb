function let_block(x)
    y = let t = x * 2
        t + 1
    end
    return y
end

# ---- arrays ----
