function y = matrix_sums(A)
  y = sum(sum(A)) + max(max(A)) * 100;
end

