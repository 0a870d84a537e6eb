function s = sumsq(x)
  s = 0;
  for i = 1:numel(x)
    s = s + x(i)^2;
  end
end

