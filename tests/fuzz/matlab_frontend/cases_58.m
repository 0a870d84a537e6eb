function y = caller_keeps(x)
  z = modify_arg(x);
  y = x(1) + z(1);
end

