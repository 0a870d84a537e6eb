function y = linear_slice(x)
  y = x(2:4);
end

