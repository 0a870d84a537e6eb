function B = block_of(A)
  B = A(2:end, [1 3]);
end

