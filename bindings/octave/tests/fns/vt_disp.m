function y = vt_disp(x)
  y = 2 * x;
  disp(y);
end
