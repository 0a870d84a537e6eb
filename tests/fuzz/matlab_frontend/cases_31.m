function z = cplx(a, b)
  z = (a + b*1i) * (a - 2i) + 3j;
end

