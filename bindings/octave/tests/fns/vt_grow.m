function [y, z] = vt_grow(n)
  y = [];
  for i = 1:n
    y(end + 1) = i * i;
  end
  for i = 1:n
    z(i, n - i + 1) = i;
  end
end
