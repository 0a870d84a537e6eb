function y = branches(x)
  if x < 0
    y = -1;
  elseif x == 0
    y = 0;
  elseif x < 10
    y = 1;
  else
    y = 2;
  end
end

