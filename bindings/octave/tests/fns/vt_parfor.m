function y = vt_parfor(x)
  y = zeros(size(x));
  parfor i = 1:numel(x)
    y(i) = sqrt(abs(x(i))) + i;
  end
end
