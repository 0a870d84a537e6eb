function y = rounding(x)
  y = round(x);
end

