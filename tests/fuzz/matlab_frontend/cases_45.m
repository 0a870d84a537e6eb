function y = dotp(a, b)
  y = dot(a, b);
end

