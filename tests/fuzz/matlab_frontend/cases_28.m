function y = cmp(a, b)
  y = (a < b) + (a >= b) * 2 + (a ~= b) * 4;
end

