function s = sizes(A)
  [r, c] = size(A);
  s = r * 1000 + c * 100 + numel(A) + length(A) * 10000 + size(A, 1) * 1e6 + isempty(A) * 1e8;
end

