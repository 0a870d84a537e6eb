function r = row_of(A, i)
  r = A(i, :);
end

