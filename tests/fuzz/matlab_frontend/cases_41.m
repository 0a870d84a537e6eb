function y = maths(x)
  y = [abs(x), sqrt(abs(x)), exp(x), log(abs(x) + 1), sin(x), cos(x), tan(x), atan2(x, 2), floor(x), ceil(x), round(x), fix(x)];
end

