## -*- texinfo -*-
## @deftypefn  {} {@var{f} =} vr_compile (@var{name})
## @deftypefnx {} {@var{f} =} vr_compile (@@@var{name})
## @deftypefnx {} {@var{f} =} vr_compile (@dots{}, "fallback", @var{tf})
## Compile the function @var{name} (a function file on Octave's path, with its
## subfunctions) with Velociraptor and return a function handle that calls the
## compiled code.
##
## The first call with given argument classes and shapes (double, int32, int64, logical or
## complex; a scalar, a matrix or a 3-d array) compiles the function for them; later
## calls with the same classes and shapes run the machine code directly. The caller's
## arrays never change (MATLAB's value semantics).
##
## With @var{tf} true (the default) what does not compile, or a value compiled code
## leaves to Octave (broadcasting, a complex result of @code{sqrt}, a linear solve),
## runs in Octave, with one warning @code{velociraptor:fallback} naming the construct.
## With @var{tf} false that is an error @code{velociraptor:unsupported}. Errors of the
## compiled code are Octave errors with the identifiers @code{velociraptor:bounds},
## @code{velociraptor:runtime}, @code{velociraptor:shape}, @dots{}, naming the
## function, the line and, for indices, the variable, the index and the bound.
##
## @example
## f = vr_compile ("mandel");
## img = f (512, 200);
## @end example
## @seealso{vr_explain}
## @end deftypefn

function f = vr_compile (fn, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  fallback = true;
  if (mod (numel (varargin), 2) != 0)
    error ("velociraptor:invalid", "vr_compile: options come in name/value pairs");
  endif
  for k = 1:2:numel (varargin)
    switch (lower (varargin{k}))
      case "fallback"
        fallback = logical (varargin{k+1});
      otherwise
        error ("velociraptor:invalid", "vr_compile: unknown option '%s' (known: fallback)", varargin{k});
    endswitch
  endfor
  if (isa (fn, "function_handle"))
    name = func2str (fn);
    if (! isempty (name) && name(1) == "@")
      name = name(2:end);
    endif
    if (any (name == "("))
      error ("velociraptor:invalid", "vr_compile: an anonymous function does not compile; put it in a function file and pass its name");
    endif
  elseif (ischar (fn))
    name = fn;
  else
    error ("velociraptor:invalid", "vr_compile: give a function name or a handle @name");
  endif
  path = which (name);
  if (isempty (path) || numel (path) < 2 || ! strcmp (path(end-1:end), ".m"))
    error ("velociraptor:invalid", "vr_compile: `%s` is not a function file on Octave's path", name);
  endif
  source = fileread (path);
  nout = max (nargout (name), 0);
  id = vr_mex ("register", source, name, path, nout);
  f = @(varargin) vr_call (id, name, nout, fallback, varargin{:});
endfunction
