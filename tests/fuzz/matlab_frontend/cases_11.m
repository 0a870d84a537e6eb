function y = early(x)
  y = 0;
  for i = 1:numel(x)
    if x(i) < 0
      y = i;
      return;
    end
  end
  y = -1;
end

