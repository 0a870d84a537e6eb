## -*- texinfo -*-
## @deftypefn {} {} gpu_begin ()
## Start a section that compiled code may place on a GPU (up to @code{gpu_end} in the
## same block). In Octave itself it does nothing, so marked code runs unchanged.
## @seealso{gpu_end, vr_compile}
## @end deftypefn

function gpu_begin ()
endfunction
