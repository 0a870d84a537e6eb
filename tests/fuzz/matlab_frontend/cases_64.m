function y = opassign(x)
  y = x;
  y += 2;
  y *= 3;
  y -= 1;
end

