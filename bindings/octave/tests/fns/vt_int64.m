## int64 arrays and scalars in and out of compiled code (saturation, a stored double).
function y = vt_int64 (v, s)
  y = v .* 2 + s;
  y(1) = intmax ("int64") - 1;
endfunction
