function y = vt_broadcast(a, b)
  y = a + b;
end
