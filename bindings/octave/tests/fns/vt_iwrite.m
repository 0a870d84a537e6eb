function [x, s, big] = vt_iwrite(x, k)
  % Writes its int8 (or other class) argument; stores convert to the array's class.
  x(k) = x(k) * 3;
  x(1) = 1000.4;
  s = x(k) + 0;
  for j = 1:numel(x)
    s = s + x(j);
  end
  big = x > 5;
end
