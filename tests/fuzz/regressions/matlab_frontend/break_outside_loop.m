function x = f(x)
  break;
end
