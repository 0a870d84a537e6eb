function y = masked(x)
  y = x(x > 2);
end

