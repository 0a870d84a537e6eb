function y = iconv(x)
  y = int32(x);
end

