## The Octave benchmark (issue 16, item 4): each McLab-style kernel of bench/octave/
## timed in Octave's interpreter, compiled through vr_compile and as its C reference
## (c/crefs.c, a MEX file), same inputs; results checked before anything is timed
## (compiled against Octave at the interpreter's size, compiled against C at full size).
## Octave's interpreter runs at a reduced size and its time is scaled by the work.
## Prints a Markdown table. scripts/bench-octave.sh builds and installs everything and
## runs it; run_bench(true) is a quick check with tiny sizes.

function run_bench (quick)
  if (nargin < 1)
    quick = false;
  endif
  reps = 5;
  if (quick)
    reps = 1;
  endif
  rand ("seed", 42);
  ## name, full-size args, interpreter-size args, work(args), outputs, tolerance
  K = {
    {"clos", @(n) {double(rand(n) < 2 / n)}, 400, 60, @(n) n^3, 1, 0}
    {"nb1d", @(n) {rand(n, 1), zeros(n, 1), rand(n, 1) / n, 20, 1e-3}, 2000, 120, @(n) 20 * n^2, 2, 1e-12}
    {"nb3d", @(n) {rand(n, 3), zeros(n, 3), rand(n, 1) / n, 10, 1e-3}, 1500, 80, @(n) 10 * n^2, 1, 1e-12}
    {"fdtd", @(n) {n, 20}, 64, 14, @(n) 20 * n^3, 1, 1e-12}
    {"capr", @(n) {n, 200}, 300, 40, @(n) 200 * n^2, 1, 1e-12}
    {"crni", @(n) {n, 1000}, 20000, 300, @(n) 1000 * n, 1, 1e-12}
    {"diri", @(n) {n, 1e-4, 400}, 300, 40, @(n) 400 * n^2, 2, 1e-12}
    {"mbrt", @(n) {n, 200}, 600, 60, @(n) n^2, 1, 0}
    {"fiff", @(n) {n, 400}, 600, 50, @(n) 400 * n^2, 1, 1e-12}
    {"pmc", @(n) {linspace(0, 3, n), 2000}, 20000, 100, @(n) 2000 * n, 1, 1e-12}
  };
  warning ("off", "velociraptor:fallback");
  printf ("| kernel | size | Octave ms (scaled from size) | compiled ms | C ms | compiled/C | speedup over Octave | compile ms |\n");
  printf ("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  ratios = [];
  speedups = [];
  for k = 1:numel (K)
    [name, mk, full, small, work, nout, tol] = deal (K{k}{:});
    if (quick)
      full = small;
      small = max (4, ceil (small / 4));
    endif
    f = vr_compile (name, "fallback", false);
    a_small = mk (small);
    a_full = mk (full);
    ## Check: compiled = Octave (small), compiled = C (full).
    want = cell (1, nout); got = cell (1, nout); ref = cell (1, nout); big = cell (1, nout);
    t0 = tic ();
    [got{:}] = f (a_small{:});
    compile_ms = toc (t0) * 1e3;
    t0 = tic ();
    [want{:}] = feval (name, a_small{:});
    octave_ms = toc (t0) * 1e3 * work (full) / work (small);
    check (name, "Octave", want, got, tol);
    [big{:}] = f (a_full{:});
    [ref{:}] = crefs (name, a_full{:});
    check (name, "C", ref, big, max (tol, 1e-10));
    tc = timeit (@() f (a_full{:}), reps, nout);
    tr = timeit (@() crefs (name, a_full{:}), reps, nout);
    ratios(end+1) = tc / tr;
    speedups(end+1) = octave_ms / tc;
    printf ("| %s | %d | %.1f (from %d) | %.3f | %.3f | %.2f | %.0f | %.1f |\n", name, full, octave_ms, small, tc, tr, tc / tr, octave_ms / tc, compile_ms);
    fflush (stdout);
  endfor
  printf ("\nmedian compiled/C: %.2f; median speedup over Octave's interpreter: %.0fx\n", median (ratios), median (speedups));
endfunction

function t = timeit (thunk, reps, nout)
  ts = zeros (1, reps);
  out = cell (1, nout);
  for r = 1:reps
    t0 = tic ();
    [out{:}] = thunk ();
    ts(r) = toc (t0) * 1e3;
  endfor
  t = median (ts);
endfunction

function check (name, what, want, got, tol)
  for j = 1:numel (want)
    a = double (want{j}); b = double (got{j});
    ok = isequal (size (a), size (b));
    if (ok)
      d = max (abs (a(:) - b(:)) ./ max (1, abs (a(:))));
      ok = isempty (d) || d <= tol;
    endif
    if (! ok)
      error ("bench:check", "%s: output %d differs from %s", name, j, what);
    endif
  endfor
endfunction
