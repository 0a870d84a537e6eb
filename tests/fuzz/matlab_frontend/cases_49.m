function y = lin(a, b, n)
  y = linspace(a, b, n);
end

