function y = breaks(n)
  y = 0;
  for i = 1:n
    if i == 3
      continue;
    end
    if i > 6
      break;
    end
    y = y + i;
  end
end

