% int8, int16, uint8, uint16, uint32 (frontend_matlab_semantics.rs): a file of its own,
% since a file that names these classes compiles int32 and int64 values as unsupported.

function [p, q, d, n] = arith_int8(x, y)
  % Saturation at both ends, division rounded half away from zero, unary minus.
  v = int8(x);
  p = v * y;
  q = v / y;
  d = v - y;
  n = -v;
end

function [p, q, d, n] = arith_int16(x, y)
  % Saturation at both ends, division rounded half away from zero, unary minus.
  v = int16(x);
  p = v * y;
  q = v / y;
  d = v - y;
  n = -v;
end

function [p, q, d, n] = arith_uint8(x, y)
  % Saturation at both ends, division rounded half away from zero, unary minus.
  v = uint8(x);
  p = v * y;
  q = v / y;
  d = v - y;
  n = -v;
end

function [p, q, d, n] = arith_uint16(x, y)
  % Saturation at both ends, division rounded half away from zero, unary minus.
  v = uint16(x);
  p = v * y;
  q = v / y;
  d = v - y;
  n = -v;
end

function [p, q, d, n] = arith_uint32(x, y)
  % Saturation at both ends, division rounded half away from zero, unary minus.
  v = uint32(x);
  p = v * y;
  q = v / y;
  d = v - y;
  n = -v;
end

function [a, b, c, d, e] = iconv(x)
  a = int8(x);
  b = uint8(x);
  c = int16(x);
  d = uint16(x);
  e = uint32(x);
end

function [x, s] = iwrite(v, k)
  % An int8 array written through an index; stores convert to its class.
  x = int8(v);
  x(k) = x(k) * 3;
  x(1) = 1000.4;
  s = x(k) + 0;
  for j = 1:numel(x)
    s = s + x(j);
  end
end

function y = icmp(x, t)
  y = uint8(x) > t;
end

function y = imix(a, b)
  y = int8(a) + int16(b);
end

function y = ipow(a)
  y = int8(a) .^ 2;
end

function y = isum(a)
  y = sum(uint8(a));
end
