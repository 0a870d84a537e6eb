## The Octave benchmark (issue 16, item 4): each McLab-style kernel of bench/octave/
## timed in Octave's interpreter, compiled through vr_compile and as its C reference
## (c/crefs.c, a MEX file), same inputs; results checked before anything is timed
## (compiled against Octave at the interpreter's size, compiled against C at full size).
## Octave's interpreter runs at a reduced size and its time is scaled by the work.
## Prints a Markdown table. scripts/bench-octave.sh builds and installs everything and
## runs it; run_bench(true) is a quick check with tiny sizes.
##
## run_bench(quick, out_dir) also writes every timed configuration as CSV into
## out_dir/octave-bench.csv, in the columns of vr-bench.csv (bench/src/record.rs), so that
## bench/report/report.R can chart it (issue 20): `octave` is the interpreter at its reduced
## size (one run), `octave-scaled` that time scaled by the work to the full size (as
## vr-bench's `interp-scaled`), `compiled` (`compiled-<backend>` for a backend other than
## cpu) and `c` at full size, `first-call` the first call of the compiled function
## (compile, plus one call at the interpreter's size). The commit comes from
## $VR_BENCH_COMMIT, else git.

function run_bench (quick, out_dir)
  if (nargin < 1)
    quick = false;
  endif
  if (nargin < 2)
    out_dir = "";
  endif
  backend = getenv ("VR_OCTAVE_BACKEND");
  if (isempty (backend) || strcmp (backend, "cpu"))
    compiled_config = "compiled"; compiled_threads = 1;
  else
    compiled_config = ["compiled-" backend]; compiled_threads = nproc ();
  endif
  recs = {};
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
    octave_small_ms = toc (t0) * 1e3;
    octave_ms = octave_small_ms * work (full) / work (small);
    check (name, "Octave", want, got, tol);
    [big{:}] = f (a_full{:});
    [ref{:}] = crefs (name, a_full{:});
    check (name, "C", ref, big, max (tol, 1e-10));
    [tc, tc_all] = timeit (@() f (a_full{:}), reps, nout);
    [tr, tr_all] = timeit (@() crefs (name, a_full{:}), reps, nout);
    recs(end+1, :) = {name, small, "octave", 1, octave_small_ms};
    recs(end+1, :) = {name, full, "octave-scaled", 1, octave_ms};
    recs(end+1, :) = {name, full, compiled_config, compiled_threads, tc_all};
    recs(end+1, :) = {name, full, "c", 1, tr_all};
    recs(end+1, :) = {name, small, "first-call", 1, compile_ms};
    ratios(end+1) = tc / tr;
    speedups(end+1) = octave_ms / tc;
    printf ("| %s | %d | %.1f (from %d) | %.3f | %.3f | %.2f | %.0f | %.1f |\n", name, full, octave_ms, small, tc, tr, tc / tr, octave_ms / tc, compile_ms);
    fflush (stdout);
  endfor
  printf ("\nmedian compiled/C: %.2f; median speedup over Octave's interpreter: %.0fx\n", median (ratios), median (speedups));
  if (! isempty (out_dir))
    write_csv (fullfile (out_dir, "octave-bench.csv"), recs);
  endif
endfunction

## recs: kernel, size, config, threads, times in ms (one per repetition).
function write_csv (path, recs)
  date = strftime ("%Y-%m-%dT%H:%M:%SZ", gmtime (time ()));
  commit = getenv ("VR_BENCH_COMMIT");
  if (isempty (commit))
    [status, out] = system ("git rev-parse --short HEAD 2>/dev/null");
    commit = strtrim (out);
    if (status != 0 || isempty (commit))
      commit = "unknown";
    endif
  endif
  ## As vr-bench names it: the CPU model and the cores this process may use.
  model = regexp (fileread ("/proc/cpuinfo"), 'model name\s*:\s*([^\n]*)', "tokens", "once");
  if (isempty (model))
    model = {computer()};
  endif
  machine = sprintf ("%s, %d cores", strtrim (model{1}), nproc ());
  if (! exist (fileparts (path), "dir"))
    mkdir (fileparts (path));
  endif
  fid = fopen (path, "w");
  if (fid < 0)
    error ("bench:csv", "cannot write %s", path);
  endif
  fprintf (fid, "kernel,size,config,threads,median_s,min_s,max_s,reps,machine,date,commit\n");
  for i = 1:rows (recs)
    [kernel, n, config, threads, ms] = deal (recs{i, :});
    s = ms / 1e3;
    fprintf (fid, "%s,%d,%s,%d,%.9f,%.9f,%.9f,%d,\"%s\",%s,%s\n", kernel, n, config, threads,
             median (s), min (s), max (s), numel (s), machine, date, commit);
  endfor
  fclose (fid);
  fprintf (stderr, "results in %s\n", path);
endfunction

function [t, ts] = timeit (thunk, reps, nout)
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
