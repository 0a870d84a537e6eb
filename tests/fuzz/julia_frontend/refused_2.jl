function prints(x)
    println("x = ", x)
    return x
end

