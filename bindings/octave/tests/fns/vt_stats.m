function [s, m, k] = vt_stats(x)
  s = sum(x);
  [m, k] = max(x);
end
