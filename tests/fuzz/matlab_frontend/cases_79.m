function y = neg_range(n)
  y = 0;
  for i = n:-2:1
    y = y * 10 + i;
  end
end

