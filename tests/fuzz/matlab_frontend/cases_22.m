function y = gather(x, idx)
  y = x(idx);
end

