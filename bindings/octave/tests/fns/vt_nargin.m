function y = vt_nargin(x, scale)
  if nargin < 2
    scale = 3;
  end
  y = x * scale;
end
