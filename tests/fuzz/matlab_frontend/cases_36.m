function y = cumulative(x)
  y = cumsum(x);
end

