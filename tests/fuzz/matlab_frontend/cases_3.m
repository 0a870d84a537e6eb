function [s, p] = sum_prod(x)
  s = 0;
  p = 1;
  for k = 1:length(x)
    s = s + x(k);
    p = p * x(k);
  end
end

