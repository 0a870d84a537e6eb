function y = vt_sqrt(x)
  y = sqrt(x) + 1;
end
