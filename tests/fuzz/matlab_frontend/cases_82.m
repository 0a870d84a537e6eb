function y = neg_pow(x)
  y = x .^ 0.5;
end

