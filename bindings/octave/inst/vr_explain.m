## -*- texinfo -*-
## @deftypefn  {} {} vr_explain (@var{f})
## @deftypefnx {} {@var{text} =} vr_explain (@var{f})
## @deftypefnx {} {@var{text} =} vr_explain (@var{f}, "vrir")
## What Velociraptor made of the handle @var{f} from @code{vr_compile}: for each
## specialization compiled so far (argument classes and shapes, number of outputs), the
## backend, the compile time and what each optimizer pass did, or why the call runs in
## Octave. With "vrir", the compiled VRIR itself.
## @seealso{vr_compile}
## @end deftypefn

function text = vr_explain (f, what)
  if (nargin < 1 || ! isa (f, "function_handle"))
    error ("velociraptor:invalid", "vr_explain: give a handle from vr_compile");
  endif
  s = functions (f);
  if (! isfield (s, "workspace") || isempty (s.workspace) || ! isfield (s.workspace{1}, "id"))
    error ("velociraptor:invalid", "vr_explain: not a handle from vr_compile");
  endif
  cmd = "explain";
  if (nargin > 1 && strcmpi (what, "vrir"))
    cmd = "dump";
  endif
  t = vr_mex (cmd, s.workspace{1}.id);
  if (nargout == 0)
    printf ("%s", t);
  else
    text = t;
  endif
endfunction
