function y = vt_int(a, b)
  y = int32(a) * b + int32(7) / 2;
end
