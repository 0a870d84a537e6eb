function y = grow2(n)
  for i = 1:n
    for j = 1:i
      y(i, j) = i + j;
    end
  end
end

