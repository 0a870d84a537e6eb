function y = slice_assign(A, v)
  y = A;
  y(2, :) = v;
  y(:, 1) = 7;
end

