function [a, b, c] = three(x)
  a = x + 1;
  b = x + 2;
  c = x + 3;
end

