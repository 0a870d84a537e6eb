function [p, q, d, n] = vt_iarith(x, y)
  % int8 ... uint32 arithmetic: in double, rounded half away from zero, saturated.
  p = x * y;
  q = x / y;
  d = x - y;
  n = -x;
end
