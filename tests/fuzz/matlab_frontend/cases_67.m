function y = nested_calls(x)
  y = helper_sq(x) + helper_sq(x + 1);
end

