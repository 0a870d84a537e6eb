function y = reshaped(A)
  y = reshape(A, 2, []);
end

