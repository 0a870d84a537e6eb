function y = mpow(x)
  y = x ^ 2 + 2 ^ x;
end

