w() = n ÷ 2
n = n + 1
