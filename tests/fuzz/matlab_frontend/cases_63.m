function y = do_until(n)
  y = 0;
  do
    y = y + n;
    n = n - 1;
  until n <= 0
end

