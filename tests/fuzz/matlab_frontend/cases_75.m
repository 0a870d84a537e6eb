function y = mat_solve(A, b)
  y = A \ b;
end

