function y = idiv(a, b)
  y = int32(a) / int32(b);
end

