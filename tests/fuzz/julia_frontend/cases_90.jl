rev(x) = reverse(x)

