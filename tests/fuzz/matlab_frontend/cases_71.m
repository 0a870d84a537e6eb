function y = sqrt_neg(x)
  y = sqrt(x);
end

