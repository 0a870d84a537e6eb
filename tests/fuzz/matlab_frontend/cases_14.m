function v = frac_range(a, s, b)
  v = a:s:b;
end

