## A `for` loop over the columns of a matrix; c is the last column afterwards.
function [t, c] = vt_cols (M)
  t = zeros (rows (M), 1);
  for c = M
    t = t + c;
  endfor
endfunction
