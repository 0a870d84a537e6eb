function y = logic_ops(a, b)
  y = (a & b) | ~a;
end

