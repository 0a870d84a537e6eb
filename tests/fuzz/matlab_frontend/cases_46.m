function y = finds(x)
  y = find(x > 1);
end

