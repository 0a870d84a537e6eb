function [a, b, c, d] = vt_imax(x)
  a = intmax('int8') + x;
  b = intmin('int16') - x;
  c = intmax('uint16') * x;
  d = uint8(x) / 0;
end
