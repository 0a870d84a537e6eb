function r = helper_sq(v)
  r = v .* v;
end

