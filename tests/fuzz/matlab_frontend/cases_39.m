function y = row_sums(A)
  y = sum(A, 2);
end

