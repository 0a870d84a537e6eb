function y = scalar_expand(A, s)
  y = A * s + s ./ A - 1;
end

