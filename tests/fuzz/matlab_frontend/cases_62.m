function y = loop_columns(v)
  y = 0;
  for e = v
    y = y * 10 + e;
  end
end

