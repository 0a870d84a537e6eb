function y = empty_loop(n)
  y = 5;
  for i = 1:n
    y = y + 1;
  end
end

