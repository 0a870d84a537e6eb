function y = switcher(x)
  switch x
    case 1
      y = 10;
    case {2, 3}
      y = 20;
    otherwise
      y = -1;
  end
end

