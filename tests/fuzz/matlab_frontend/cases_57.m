function x = modify_arg(x)
  x(1) = 100;
end

