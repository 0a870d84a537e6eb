function y = logical_idx_assign(x)
  y = x;
  y(y < 0) = 0;
end

