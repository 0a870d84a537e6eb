## -*- texinfo -*-
## @deftypefn {} {} gpu_end ()
## End a section started by @code{gpu_begin}. Does nothing in Octave itself.
## @seealso{gpu_begin, vr_compile}
## @end deftypefn

function gpu_end ()
endfunction
