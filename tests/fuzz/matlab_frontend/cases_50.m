function y = isat(a, b)
  y = int32(a) * b;
end

