function s = spin(n)
  s = 0;
  k = 0;
  while k < n
    k = k + 1;
    s = s + mod(k, 7);
  end
end
