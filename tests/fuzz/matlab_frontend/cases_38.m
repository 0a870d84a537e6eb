function y = col_sums(A)
  y = sum(A, 1) + mean(A, 1);
end

