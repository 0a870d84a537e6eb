function m = literals(a, b)
  m = [a b; b a; 1 2];
end

