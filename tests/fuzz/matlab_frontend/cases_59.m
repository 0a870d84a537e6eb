function y = alias_copy(x)
  z = x;
  z(2) = -1;
  y = [x; z];
end

