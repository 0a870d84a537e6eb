function y = imix(a)
  y = a + 0.5;
end

