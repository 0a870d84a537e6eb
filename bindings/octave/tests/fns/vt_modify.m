function s = vt_modify(x)
  x(1) = -1;
  x(end) = x(end) * 2;
  s = sum(x(:));
end
