function [y, k] = vt_mask(x, t)
  y = x(x > t);
  k = find(x > t);
end
