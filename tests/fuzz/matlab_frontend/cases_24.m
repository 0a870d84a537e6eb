function B = transposes(A)
  B = A' + A.';
end

