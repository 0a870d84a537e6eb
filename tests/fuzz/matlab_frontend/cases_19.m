function v = flat_of(A)
  v = A(:);
end

