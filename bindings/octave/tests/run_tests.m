## The Octave package's tests (scripts/test-octave.sh runs them in octave-cli after
## `pkg install` of the tarball into a fresh user directory). Expected values come from
## Octave itself: each compiled call is compared with the same function run by Octave.

function run_tests ()
  n = 0;
  warning ("off", "velociraptor:fallback");

  ## Compiled results equal Octave's own: class, size and values.
  A = reshape (1:20, 4, 5) / 3;
  calls = {
    {"vt_sumsq", {[1 2 3.5]}, 1}
    {"vt_sumsq", {zeros(0, 0)}, 1}
    {"vt_sumsq", {2.5}, 1}
    {"vt_stats", {[3 9 2 9]}, 3}
    {"vt_stats", {[3; -1; 7]}, 2}
    {"vt_heat", {[0 0 0 0 0; 0 1 2 1 0; 0 3 9 2 0; 0 0 0 0 0], 3}, 1}
    {"vt_mandel", {12, 40}, 1}
    {"vt_grow", {6}, 2}
    {"vt_modify", {A}, 1}
    {"vt_int", {100, 2.6}, 1}
    {"vt_int", {2e9, 3}, 1}
    {"vt_mask", {A, 2}, 2}
    {"vt_mask", {[1 5 2 7], 2}, 2}
    {"vt_parfor", {A}, 1}
    {"vt_nargin", {2}, 1}
    {"vt_nargin", {2, 5}, 1}
    {"vt_index", {int32([4 5 6]), 2}, 1}
    {"vt_index", {[true false true], 3}, 1}
    {"vt_index", {[1+2i, 3-4i], 2}, 1}
    {"vt_gpu", {[1 2 3], 0.5}, 1}
    {"vt_broadcast", {[1 2 3], 10}, 1}
    {"vt_int64", {int64([1 -2 3]), 0.5}, 1}
    {"vt_int64", {int64(2)^62 + int64(5), 3}, 1}
    {"vt_int64", {int64([5; 7]), -2.5}, 1}
    {"vt_cols", {A}, 2}
    {"vt_cols", {[1 2 3]}, 2}
    {"vt_cols", {zeros(0, 3)}, 2}
    ## int8 ... uint32: saturation at both ends, rounding, classes of results.
    {"vt_iarith", {int8(100), 2}, 4}
    {"vt_iarith", {int8(-100), 2}, 4}
    {"vt_iarith", {int8(-128), -1}, 4}
    {"vt_iarith", {int8([7 -7 5]), 2}, 4}
    {"vt_iarith", {uint8(5), 10}, 4}
    {"vt_iarith", {uint8(7), 2}, 4}
    {"vt_iarith", {uint8([250 3]), -2}, 4}
    {"vt_iarith", {int16(-32768), 1}, 4}
    {"vt_iarith", {int16([32000; -5]), 1.5}, 4}
    {"vt_iarith", {uint16(65535), 0.5}, 4}
    {"vt_iarith", {uint16([3 9]), 4}, 4}
    {"vt_iarith", {uint32(4e9), 2}, 4}
    {"vt_iarith", {uint32([7 3e9]), -0.5}, 4}
    {"vt_iarith", {2.5, uint8(3)}, 4}
    {"vt_iarith", {int8(5), 0}, 4}
    {"vt_iarith", {int8([1 2; 3 4]), int8(3)}, 4}
    {"vt_iarith", {uint8(200), true}, 4}
    {"vt_iconv", {3.5}, 5}
    {"vt_iconv", {-3}, 5}
    {"vt_iconv", {NaN}, 5}
    {"vt_iconv", {[2.5 -2.5 -0.5 300 -1e10 1e10 Inf -Inf NaN 65535.5]}, 5}
    {"vt_iconv", {int8([-128 127])}, 5}
    {"vt_iconv", {uint32(4294967295)}, 5}
    {"vt_iconv", {[true false]}, 5}
    {"vt_iwrite", {int8([1 2 3]), 2}, 3}
    {"vt_iwrite", {uint8([10 20 30]), 3}, 3}
    {"vt_iwrite", {int16([5 -9]), 2}, 3}
    {"vt_iwrite", {uint32([1 2 3 4]), 4}, 3}
    {"vt_iwrite", {uint16(7), 1}, 3}
    {"vt_imax", {3}, 4}
    {"vt_imax", {0.4}, 4}
  };
  for k = 1:numel (calls)
    c = calls{k};
    [name, args, nout] = deal (c{:});
    f = vr_compile (name, "fallback", false);
    want = cell (1, nout);
    got = cell (1, nout);
    [want{:}] = feval (name, args{:});
    [got{:}] = f (args{:});
    for j = 1:nout
      same = strcmp (class (want{j}), class (got{j})) && isequal (size (want{j}), size (got{j})) ...
             && isequaln (want{j}, got{j}) && isreal (want{j}) == isreal (got{j});
      assert (same, "%s output %d: Octave gives %s, compiled %s", name, j, mat2str (want{j}), mat2str (got{j}));
    endfor
    n++;
  endfor
  ## The handle of a name and of @name; fewer outputs than declared.
  f = vr_compile (@vt_stats);
  assert (f ([1 4 2]), 7);
  [s, m] = f ([1 4 2]);
  assert ([s m], [7 4]);
  n++;

  ## Inputs are never changed by a compiled function that writes its parameter.
  B = A;
  f = vr_compile ("vt_modify");
  f (B);
  assert (isequal (B, A));
  n++;

  ## An int8 argument the function writes: the caller's array is unchanged.
  X = int8([1 2 3]);
  f = vr_compile ("vt_iwrite", "fallback", false);
  [y, s] = f (X, 2);
  assert (isequal (X, int8([1 2 3])) && strcmp (class (X), "int8"));
  assert (strcmp (class (y), "int8") && isequal (y, int8([127 6 3])) && isequal (s, int8(127)));
  n++;

  ## Two integer classes together: Octave's error, through the fallback (with no
  ## fallback, a compile-time `unsupported` naming both classes); int8 with int32 too.
  f = vr_compile ("vt_imix");
  try
    f (int8(1), int16(2));
    error ("no error for int8 + int16");
  catch e
    assert (! isempty (strfind (e.message, "binary operator '+' not implemented for 'int8 scalar' by 'int16 scalar' operations")), e.message);
  end_try_catch
  assert (f (int8(100), 100), int8(127));
  g = vr_compile ("vt_imix", "fallback", false);
  check_error (@() g (int8(1), int16(2)), "velociraptor:unsupported", {"int8", "int16"});
  check_error (@() g (uint8(1), int32(2)), "velociraptor:unsupported", {"int32"});
  ## uint64 does not compile (a named fallback): Octave's answer.
  check_error (@() g (uint64(1), 2), "velociraptor:unsupported", {"uint64"});
  assert (f (uint64(2^60), 1), uint64(2^60) + 1);
  n += 3;

  ## Error identifiers: index out of bounds, a run-time error of MATLAB's, the user's
  ## own error(), an unsupported construct without fallback.
  f = vr_compile ("vt_index");
  check_error (@() f ([1 2 3], 4), "velociraptor:bounds", {"vt_index", "line 2", "x"});
  check_error (@() f ([1 2 3], 1.5), "velociraptor:runtime", {"subscripts must be"});
  f = vr_compile ("vt_user_error");
  check_error (@() f (-1), "velociraptor:runtime", {"x must be nonnegative"});
  assert (f (2), 3);
  f = vr_compile ("vt_disp", "fallback", false);
  check_error (@() f (1), "velociraptor:unsupported", {"disp", "line 3"});
  f = vr_compile ("vt_sqrt", "fallback", false);
  assert (f (4), 3);
  check_error (@() f (-4), "velociraptor:unsupported", {"complex"});
  f = vr_compile ("vt_broadcast", "fallback", false);
  check_error (@() f ([1 2 3], [1; 2]), "velociraptor:unsupported", {"broadcast"});
  check_error (@() f ([1 2 3], [1 2]), "velociraptor:runtime", {"nonconformant"});
  n += 8;

  ## Fallback (the default): Octave's answer, with one velociraptor:fallback warning
  ## naming the construct, once per specialization.
  warning ("on", "velociraptor:fallback");
  f = vr_compile ("vt_disp");
  lastwarn ("");
  [~, y] = evalc ("f (21)");
  [msg, id] = lastwarn ();
  assert (y, 42);
  assert (id, "velociraptor:fallback");
  assert (! isempty (strfind (msg, "disp")), msg);
  lastwarn ("");
  evalc ("f (1)");
  assert (isempty (lastwarn ()), "the warning comes once");
  f = vr_compile ("vt_sqrt");
  lastwarn ("");
  y = f (-4);
  assert (y, sqrt (-4) + 1);
  [msg, id] = lastwarn ();
  assert (id, "velociraptor:fallback");
  f = vr_compile ("vt_broadcast");
  assert (f ([1 2 3], [1; 2]), [1 2 3] + [1; 2]);
  warning ("off", "velociraptor:fallback");
  ## A class that does not compile (single) runs in Octave.
  f = vr_compile ("vt_sumsq");
  assert (f (single ([1 2])), single (5));
  n += 4;

  ## The session survives 1,000 failing calls, then answers correctly.
  f = vr_compile ("vt_index");
  failures = 0;
  for k = 1:1000
    try
      f ([1 2 3], 3 + k);
    catch e
      failures += strcmp (e.identifier, "velociraptor:bounds");
    end_try_catch
  endfor
  assert (failures, 1000);
  assert (f ([1 2 3], 2), 2);
  n++;

  ## vr_explain names what was compiled, and the VRIR.
  f = vr_compile ("vt_sumsq");
  f ([1 2]);
  t = vr_explain (f);
  assert (! isempty (strfind (t, "specialization")), t);
  t = vr_explain (f, "vrir");
  assert (! isempty (strfind (t, "(module vt_sumsq")), t);
  n++;

  printf ("ok: %d Octave package tests\n", n);
endfunction

function check_error (thunk, id, parts)
  try
    thunk ();
  catch e
    assert (e.identifier, id, "error identifier");
    for k = 1:numel (parts)
      assert (! isempty (strfind (e.message, parts{k})), "message `%s` lacks `%s`", e.message, parts{k});
    endfor
    return;
  end_try_catch
  error ("no error; expected %s", id);
endfunction
