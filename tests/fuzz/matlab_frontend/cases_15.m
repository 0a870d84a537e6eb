function t = frac_loop()
  t = 0;
  for x = 0:0.1:1
    t = t + x;
  end
end

