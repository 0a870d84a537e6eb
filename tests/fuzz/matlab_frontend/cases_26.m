function C = mm(A, B)
  C = A * B;
end

