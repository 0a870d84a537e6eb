function y = grow(n)
  y = [];
  for i = 1:n
    y(end + 1) = i * i;
  end
end

