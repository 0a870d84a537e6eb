function y = g(A)
  y = sum(sum(A)) + max(max(A));
end
