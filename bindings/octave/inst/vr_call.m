## -*- texinfo -*-
## @deftypefn {} {[@dots{}] =} vr_call (@var{id}, @var{name}, @var{nout}, @var{fallback}, @dots{})
## What a handle returned by @code{vr_compile} calls: the compiled function for these
## arguments' classes and shapes (compiled at their first call), or, where compiled
## code leaves the call to Octave, the function itself, with one warning
## @code{velociraptor:fallback}. Not meant to be called directly.
## @seealso{vr_compile}
## @end deftypefn

function varargout = vr_call (id, name, nout, fallback, varargin)
  n = nargout;
  if (n == 0 && nout > 0)
    n = 1;
  endif
  if (n > nout)
    error ("Octave:invalid-fun-call", "%s: function called with too many outputs", name);
  endif
  [status, out] = vr_mex ("call", id, n, fallback, varargin{:});
  if (status == 1)
    varargout = out;
    return;
  endif
  if (status == 0)
    warning ("velociraptor:fallback", "%s runs in Octave: %s", name, out);
  endif
  if (n == 0)
    feval (name, varargin{:});
  else
    [varargout{1:n}] = feval (name, varargin{:});
  endif
endfunction
