function y = f(x, k, k)
  y = k;
end
