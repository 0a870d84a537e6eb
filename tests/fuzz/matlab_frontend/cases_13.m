function v = ranges(n)
  v = [1:n, 10:-3:1, 0:0.25:1];
end

