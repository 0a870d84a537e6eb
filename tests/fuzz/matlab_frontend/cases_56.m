function y = grow_col(n)
  y = zeros(0, 1);
  y(3) = 5;
  y = y + n;
end

