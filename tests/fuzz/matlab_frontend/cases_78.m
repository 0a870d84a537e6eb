function y = trues(n)
  y = true(1, n);
  y(2) = false;
end

