function y = count_while(n)
  y = 0;
  k = n;
  while k > 1
    if mod(k, 2) == 0
      k = k / 2;
    else
      k = 3 * k + 1;
    end
    y = y + 1;
  end
end

