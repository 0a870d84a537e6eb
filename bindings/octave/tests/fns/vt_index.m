function y = vt_index(x, i)
  y = x(i);
end
