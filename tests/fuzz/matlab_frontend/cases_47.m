function y = tiles(A)
  y = repmat(A, 2, 3);
end

