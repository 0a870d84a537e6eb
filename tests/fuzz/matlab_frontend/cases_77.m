function y = bool_ops(x)
  y = ~x;
  y = y | x;
end

