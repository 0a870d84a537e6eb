function [m, k] = argmax(x)
  [m, k] = max(x);
end

