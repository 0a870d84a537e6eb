function y = user_error(x)
  if x < 0
    error('x must be nonnegative');
  end
  y = sqrt(x);
end

