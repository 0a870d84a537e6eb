function y = bad_index(x, i)
  y = x(i);
end

