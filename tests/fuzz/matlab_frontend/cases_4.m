function y = with_nargin(x, scale)
  if nargin < 2
    scale = 10;
  end
  y = x * scale;
end

