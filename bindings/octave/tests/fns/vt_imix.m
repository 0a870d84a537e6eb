function y = vt_imix(a, b)
  y = a + b;
end
