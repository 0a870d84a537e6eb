function [a, b, c, d, e] = vt_iconv(x)
  % Conversions from double: rounded half away from zero, saturated, NaN to 0.
  a = int8(x);
  b = uint8(x);
  c = int16(x);
  d = uint16(x);
  e = uint32(x);
end
