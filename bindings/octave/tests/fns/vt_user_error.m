function y = vt_user_error(x)
  if x < 0
    error('x must be nonnegative');
  end
  y = x + 1;
end
