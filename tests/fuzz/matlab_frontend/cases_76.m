function y = scalar_idx(x)
  y = x(1) + x(1, 1);
end

