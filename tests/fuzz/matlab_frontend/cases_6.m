function y = uses_three(x)
  [p, q] = three(x);
  [~, ~, r] = three(x);
  y = p * 100 + q * 10 + r + three(x);
end

