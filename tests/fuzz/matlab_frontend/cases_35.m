function y = reductions(x)
  y = [sum(x), prod(x), mean(x), min(x), max(x), any(x > 3), all(x > 0)];
end

