function z = cabs(a)
  z = abs(a + 1i * a) + real(a * 1i) + imag(a * 1i);
end

