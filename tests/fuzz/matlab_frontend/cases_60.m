function y = par_square(x)
  y = zeros(size(x));
  parfor i = 1:numel(x)
    y(i) = x(i)^2;
  end
end

