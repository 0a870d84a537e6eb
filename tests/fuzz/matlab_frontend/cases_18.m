function c = col_of(A, j)
  c = A(:, j);
end

