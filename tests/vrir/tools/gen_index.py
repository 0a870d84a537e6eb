#!/usr/bin/env python3
"""Generate the indexing matrix of the conformance suite: every indexing mode x layout
(row, col, strided through a :view slice) x index base (0, 1), for reads, writes,
aliasing views vs copies, and out-of-bounds / shape errors.

Every expectation is computed twice, by NumPy (positions via NumPy slicing and fancy
indexing) and by Octave (the same selection written in Octave's 1-based, inclusive
syntax), and the two must agree; a file names NumPy for index base 0 and Octave for
index base 1.  Run from the repository root: python3 tests/vrir/tools/gen_index.py
"""
import numpy as np

from common import HostBatch, OctaveError, fmt_value, oct_matrix, write_case

# ------------------------------------------------------------------ index kinds
# Positions are 0-based logical positions; with :neg a negative value counts from
# the end (written as is in VRIR, NumPy-style).


class S:
    def __init__(self, p):
        self.p = p


class Raw(S):
    """A scalar position written as is, without :neg (negative = out of bounds)."""


class R:
    def __init__(self, start, stop, step=1):
        self.start, self.stop, self.step = start, stop, step


class C:
    pass


class G:
    def __init__(self, ps):
        self.ps = ps


class M:
    def __init__(self, bs):
        self.bs = bs


def vr_pos(p, base, neg):
    return str(p) if (neg and p < 0) else str(p + base)


def vr_index(ix, base, neg, k):
    """VRIR text for one index; gathers and masks are parameters g<k> / m<k>."""
    if isinstance(ix, Raw):
        return str(ix.p + base)
    if isinstance(ix, S):
        return vr_pos(ix.p, base, neg)
    if isinstance(ix, R):
        a = "_" if ix.start is None else vr_pos(ix.start, base, neg)
        b = "_" if ix.stop is None else vr_pos(ix.stop, base, neg)
        return "(range %s %s)" % (a, b) if ix.step == 1 else "(range %s %s %d)" % (a, b, ix.step)
    if isinstance(ix, C):
        return ":"
    if isinstance(ix, G):
        return "g%d" % k
    if isinstance(ix, M):
        return "m%d" % k
    raise TypeError


def np_positions(ix, u):
    """The 0-based positions an index selects, by NumPy's own indexing of arange(u)."""
    ar = np.arange(u)
    if isinstance(ix, Raw) and ix.p < 0:
        raise IndexError("negative position without :neg")
    if isinstance(ix, S):
        return ar[ix.p]  # NumPy raises IndexError out of bounds; negative = from the end
    if isinstance(ix, R):
        norm = lambda p: None if p is None else (p + u if p < 0 else p)
        start, stop = norm(ix.start), norm(ix.stop)
        if stop is not None:  # VRIR stops are inclusive
            stop = stop + (1 if ix.step > 0 else -1)
            if stop < 0:
                stop = None
        sel = ar[slice(start, stop, ix.step)]
        return sel
    if isinstance(ix, C):
        return ar[:]
    if isinstance(ix, G):
        return ar[np.array(ix.ps, dtype=int)]
    if isinstance(ix, M):
        return ar[np.array(ix.bs, dtype=bool)]
    raise TypeError


def oct_pos(p):
    return ("end" if p == -1 else "end%d" % (p + 1)) if p < 0 else str(p + 1)


def oct_index(ix):
    if isinstance(ix, Raw):
        return str(ix.p + 1)
    if isinstance(ix, S):
        return oct_pos(ix.p)
    if isinstance(ix, R):
        a = (("1" if ix.step > 0 else "end") if ix.start is None else oct_pos(ix.start))
        b = (("end" if ix.step > 0 else "1") if ix.stop is None else oct_pos(ix.stop))
        return "(%s:%d:%s)" % (a, ix.step, b)
    if isinstance(ix, C):
        return ":"
    if isinstance(ix, G):
        return "[%s]" % " ".join(str(p + 1) for p in ix.ps)
    if isinstance(ix, M):
        return "logical([%s])" % " ".join("1" if b else "0" for b in ix.bs)
    raise TypeError


# ------------------------------------------------------------------ data

def A2():
    return np.array([[10.0 * (i + 1) + (j + 1) for j in range(5)] for i in range(4)])


def B2():  # strided source: V = B[0:7:2, 0:9:2] is 4 x 5
    return np.array([[100.0 * (i + 1) + (j + 1) for j in range(9)] for i in range(7)])


def A1():
    return np.array([1.5, 2.5, 3.5, 4.5, 5.5, 6.5])


def B1():  # V = B[1:12:2] is 6 long
    return np.arange(13) * 1.0 + 0.25


def A3():
    return np.array([[[100.0 * (i + 1) + 10 * (j + 1) + (k + 1) for k in range(4)]
                      for j in range(3)] for i in range(2)])


def B3():  # V = B[0:3:2, 0:5:2, 0:8:2] is 2 x 3 x 4
    return np.array([[[1000.0 * (i + 1) + 100 * (j + 1) + (k + 1) for k in range(8)]
                      for j in range(5)] for i in range(3)])


SHAPES = {
    1: dict(A=A1, B=B1, view=[R(1, 11, 2)]),
    2: dict(A=A2, B=B2, view=[R(0, 6, 2), R(0, 8, 2)]),
    3: dict(A=A3, B=B3, view=[R(0, 2, 2), R(0, 4, 2), R(0, 6, 2)]),
}

COMBOS = [(lay, base) for lay in ("row", "col", "strided") for base in (0, 1)]

batch = HostBatch()
pending = []  # (callable that writes the file once Octave has answered)


def source_array(nd, lay):
    """(argument value, NumPy array the indices apply to, Octave setup, VRIR setup)."""
    sh = SHAPES[nd]
    if lay == "strided":
        B = sh["B"]()
        pos = [np_positions(ix, u) for ix, u in zip(sh["view"], B.shape)]
        V = B[np.ix_(*pos)]
        return B, V
    A = sh["A"]()
    return A, A


def view_text(nd, base):
    return " ".join(vr_index(ix, base, False, 0) for ix in SHAPES[nd]["view"])


def oct_setup(nd, lay, arg):
    """Octave statements defining X (the indexed array) from the argument."""
    s = "B = %s; " % oct_matrix(arg)
    if lay == "strided":
        rs = []
        for k, ix in enumerate(SHAPES[nd]["view"]):
            s += "Q%d = %s; " % (k, oct_index(ix).replace("end", str(arg.shape[k])))
            rs.append("Q%d" % k)
        s += "X = B(%s); " % ",".join(rs)
    else:
        s += "X = B; "
    if nd == 1:
        s += "X = X(:).'; "
    return s


def fill(indices, nd, flat):
    if flat:
        return list(indices)
    return list(indices) + [C()] * (nd - len(indices))


def np_read(X, indices, lay, flat):
    """NumPy: the selection (with :flat, trailing dims flattened in layout order)."""
    d = len(indices)
    if flat and d < X.ndim:
        order = "F" if lay == "col" else "C"
        X = X.reshape(X.shape[:d - 1] + (-1,), order=order)
    indices = fill(indices, X.ndim, False)
    pos = [np_positions(ix, u) for ix, u in zip(indices, X.shape)]
    full = [np.atleast_1d(p) for p in pos]
    sel = X[np.ix_(*full)]
    keep = [len(f) for p, f in zip(pos, full) if np.ndim(p) == 1]
    return sel.reshape(keep)


def oct_flat_prefix(nd, d, lay):
    """Octave statement turning X into an array whose trailing dims, linearized by
    Octave (column-major), enumerate in the VRIR layout's order."""
    if lay == "col" or d >= nd or d == 0:
        return "Y = X; "
    perm = list(range(1, d)) + list(range(nd, d - 1, -1))
    return "Y = permute(X, [%s]); " % " ".join(map(str, perm))


def oct_read(nd, lay, arg, indices, flat):
    d = len(indices)
    setup = oct_setup(nd, lay, arg)
    if flat:
        setup += oct_flat_prefix(nd, d, lay)
    else:
        setup += "Y = X; "
    idx = [oct_index(ix) for ix in fill(indices, nd, flat)]
    if nd == 1 or (flat and d == 1):
        # a vector / linear index: one subscript
        return setup + "r = Y(%s);" % idx[0]
    return setup + "r = Y(%s);" % ",".join(idx)


def vr_type(nd, lay, elem="f64"):
    return "%s[%d,%s]" % (elem, nd, lay)


def extra_params(indices, base, neg):
    params, args = [], []
    for k, ix in enumerate(indices):
        if isinstance(ix, G):
            params.append("(g%d i64[1,row])" % k)
            args.append("[" + ", ".join(vr_pos(p, base, neg) for p in ix.ps) + "]")
        if isinstance(ix, M):
            params.append("(m%d bool[1,row])" % k)
            args.append("[" + ", ".join("true" if b else "false" for b in ix.bs) + "]")
    return params, args


def flags_text(neg=False, flat=False, nocheck=False, view=False):
    fl = [f for f, on in ((":neg", neg), (":flat", flat), (":nocheck", nocheck), (":view", view)) if on]
    return (" " + " ".join(fl)) if fl else ""


def header(nd, lay, base, params, result, locals_):
    arg_lay = "row" if lay == "strided" else lay
    p = ["(%s %s)" % ("B" if lay == "strided" else "A", vr_type(nd, arg_lay))] + params
    setup = ""
    loc = ""
    X = "A"
    if lay == "strided":
        loc = " (V %s)" % vr_type(nd, "strided")
        setup = "    (set V (index B %s :view))\n" % view_text(nd, base)
        X = "V"
    return p, loc + locals_, setup, X


def module(name, base, params, results, locals_, body):
    return ("(module %s :index-base %d\n  (function f (%s) (%s)\n    (locals%s)\n%s))\n"
            % (name, base, " ".join(params), " ".join(results), locals_, body))


def note_for(lay, base):
    host = "numpy" if base == 0 else "octave"
    other = "octave" if base == 0 else "numpy"
    return host, other


# ------------------------------------------------------------------ read cases

def read_case(folder, stem, nd, indices, neg=False, flat=False, nocheck=False, desc="",
              combos=COMBOS):
    for lay, base in combos:
        if neg and base == 1 and lay == "col":
            pass
        arg, X = source_array(nd, lay)
        exp_np = np_read(X, indices, lay, flat)
        res_lay = "row" if lay == "strided" else lay
        nres = exp_np.ndim
        result_t = "f64" if nres == 0 else vr_type(nres, res_lay)
        params, args = extra_params(indices, base, neg)
        p, loc, setup, Xn = header(nd, lay, base, params, result_t, "")
        ixs = " ".join(vr_index(ix, base, neg, k) for k, ix in enumerate(indices))
        body = setup + "    (return (index %s %s%s))" % (Xn, ixs, flags_text(neg, flat, nocheck))
        name = "%s_%s_b%d" % (stem, lay, base)
        src = module(name, base, p, [result_t], loc, body)
        key = batch.octave(name, oct_read(nd, lay, arg, indices, flat))
        run = "run: f(%s) == %s" % (", ".join([fmt_value(arg, "f64")] + args), fmt_value(exp_np, "f64"))
        pending.append((folder, name, src, base, key, exp_np, [run], desc, lay))


def check_and_write(folder, name, src, base, key, exp_np, runs, desc, lay):
    got = batch.get(key)
    if isinstance(got, OctaveError):
        raise SystemExit("%s: octave failed: %s" % (name, got))
    got = np.asarray(got).reshape(np.shape(exp_np)) if np.size(got) == np.size(exp_np) else got
    if np.shape(got) != np.shape(exp_np) or not np.array_equal(got, exp_np):
        raise SystemExit("%s: numpy and octave disagree:\n%s\n%s" % (name, exp_np, got))
    host, other = note_for(lay, base)
    note = desc + "\n" if desc else ""
    note += "layout %s, index base %d; computed with %s, cross-checked with %s" % (lay, base, host, other)
    write_case(folder, name, src, host, runs, note)


# ------------------------------------------------------------------ write cases

def np_write(arg, nd, lay, indices, val, flat):
    """NumPy: write `val` (scalar or array) at the selection; returns the new argument."""
    out = arg.copy()
    if lay == "strided":
        pos = [np_positions(ix, u) for ix, u in zip(SHAPES[nd]["view"], arg.shape)]
        grid = np.ix_(*pos)
        X = out[grid]  # fancy index: a copy, written back below
    else:
        X = out
    d = len(indices)
    if flat and d < nd:
        order = "F" if lay == "col" else "C"
        Y = X.reshape(X.shape[:d - 1] + (-1,), order=order).copy()
    else:
        Y = X
    pos = [np_positions(ix, u) for ix, u in zip(fill(indices, nd, flat), Y.shape)]
    full = [np.atleast_1d(p) for p in pos]
    v = np.asarray(val)
    if v.ndim > 0:
        v = v.reshape([len(f) for f in full])
    # NumPy assigns gathers with repeats in index order (the last one stays), as VRIR.
    Y[np.ix_(*full)] = v
    if flat and d < nd:
        X = Y.reshape(X.shape, order=order)
    if lay == "strided":
        out[grid] = X
        return out
    return X


def oct_write(nd, lay, arg, indices, val, flat):
    d = len(indices)
    s = oct_setup(nd, lay, arg)
    if flat and d < nd and lay != "col":
        perm = list(range(1, d)) + list(range(nd, d - 1, -1))
        s += "Y = permute(X, [%s]); " % " ".join(map(str, perm))
    else:
        perm = None
        s += "Y = X; "
    idx = [oct_index(ix) for ix in fill(indices, nd, flat)]
    if nd == 1 or (flat and d == 1):
        idx = idx[:1]
    v = np.asarray(val)
    vs = repr(float(v)) if v.ndim == 0 else oct_matrix(v)
    s += "Y(%s) = %s; " % (",".join(idx), vs)
    if perm:
        s += "X = ipermute(Y, [%s]); " % " ".join(map(str, perm))
    else:
        s += "X = Y; "
    if nd == 1:
        s += "X = X(:); "
    if lay == "strided":
        s += "B(%s) = reshape(X, size(B(%s))); r = B;" % (
            ",".join("Q%d" % k for k in range(nd)), ",".join("Q%d" % k for k in range(nd)))
    else:
        s += "r = reshape(X, size(B));"
    return s


def write_case_gen(folder, stem, nd, indices, val, neg=False, flat=False, desc="",
                   combos=COMBOS):
    for lay, base in combos:
        arg, X = source_array(nd, lay)
        exp_np = np_write(arg, nd, lay, indices, val, flat)
        arg_lay = "row" if lay == "strided" else lay
        params, args = extra_params(indices, base, neg)
        v = np.asarray(val)
        if v.ndim > 0:
            params = ["(w %s)" % vr_type(v.ndim, "row")] + params
            args = [fmt_value(v, "f64")] + args
            vtext = "w"
        else:
            vtext = fmt_value(v, "f64")
        p, loc, setup, Xn = header(nd, lay, base, params, None, "")
        ixs = " ".join(vr_index(ix, base, neg, k) for k, ix in enumerate(indices))
        body = setup + "    (set (index %s %s%s) %s)\n" % (Xn, ixs, flags_text(neg, flat), vtext)
        body += "    (return %s)" % ("B" if lay == "strided" else "A")
        name = "%s_%s_b%d" % (stem, lay, base)
        src = module(name, base, p, [vr_type(nd, arg_lay)], loc, body)
        key = batch.octave(name, oct_write(nd, lay, arg, indices, val, flat))
        run = "run: f(%s) == %s" % (", ".join([fmt_value(arg, "f64")] + args), fmt_value(exp_np, "f64"))
        pending.append((folder, name, src, base, key, exp_np, [run], desc, lay))


# ------------------------------------------------------------------ errors

def error_read(stem, nd, indices, message, desc, neg=False, combos=COMBOS):
    for lay, base in combos:
        arg, X = source_array(nd, lay)
        try:
            np_read(X, indices, lay, False)
            np_ok = True
        except IndexError:
            np_ok = False
        params, args = extra_params(indices, base, neg)
        p, loc, setup, Xn = header(nd, lay, base, params, None, "")
        ixs = " ".join(vr_index(ix, base, neg, k) for k, ix in enumerate(indices))
        body = setup + "    (return (index %s %s%s))" % (Xn, ixs, flags_text(neg))
        name = "%s_%s_b%d" % (stem, lay, base)
        nres = sum(1 for ix in fill(indices, nd, False) if not isinstance(ix, S))
        res = "f64" if nres == 0 else vr_type(nres, "row" if lay == "strided" else lay)
        src = module(name, base, p, [res], loc, body)
        key = batch.octave(name, oct_read(nd, lay, arg, indices, False))
        run = "error: f(%s) => %s" % (", ".join([fmt_value(arg, "f64")] + args), message)
        pending.append(("errors", name, src, base, key, ("ERR", np_ok), [run], desc, lay))


def check_error_and_write(folder, name, src, base, key, exp, runs, desc, lay):
    got = batch.get(key)
    np_ok = exp[1]
    if not isinstance(got, OctaveError):
        raise SystemExit("%s: octave did not fail" % name)
    host = "numpy" if (base == 0 and not np_ok) else "octave"
    note = desc + "\nlayout %s, index base %d; Octave raises: %s" % (lay, base, got)
    if not np_ok:
        note += "\nNumPy raises IndexError"
    else:
        note += "\n(NumPy would clamp this slice; VRIR does not clamp, as Octave)"
    write_case(folder, name, src, host, runs, note)


# ------------------------------------------------------------------ the matrix

T, F = True, False

# reads, 2-D
read_case("index", "scalar2d", 2, [S(2), S(3)], desc="scalar index into every dimension")
read_case("index", "scalar2d_nocheck", 2, [S(0), S(4)], nocheck=True, desc="scalar index, :nocheck (still in bounds)")
read_case("slice", "range_step2d", 2, [R(0, 3, 2), R(1, 4, 2)], desc="ranges with step 2, inclusive stops")
read_case("slice", "range_negstep2d", 2, [R(3, 0, -1), R(4, 0, -2)], desc="ranges with negative steps")
read_case("slice", "range_rev_absent2d", 2, [R(None, None, -1), R(1, None)], desc="absent endpoints: reversed full range, open stop")
read_case("slice", "range_absent_start2d", 2, [R(None, 2), R(None, None, 2)], desc="absent start; absent both with step 2")
read_case("slice", "range_negstep_open2d", 2, [R(2, None, -1), R(None, 1, -1)], desc="negative step with absent stop / absent start")
read_case("slice", "colon2d", 2, [C(), S(1)], desc="`:` selects a whole column")
read_case("slice", "colon_row2d", 2, [S(3), C()], desc="`:` selects a whole row")
read_case("slice", "implicit_row2d", 2, [S(2)], desc="one index into a 2-D array: implicit trailing `:` (NumPy)")
read_case("slice", "implicit_rows2d", 2, [R(1, 2)], desc="a range and an implicit trailing `:`")
read_case("slice", "empty2d", 2, [R(2, 1), C()], desc="an empty range (stop before start): 0 x 5 result")
read_case("index", "flat_scalar2d", 2, [S(7)], flat=True, desc=":flat linear index, enumerated in the layout's order")
read_case("index", "flat_range2d", 2, [R(2, 13, 3)], flat=True, desc=":flat with a range")
read_case("index", "flat_rev2d", 2, [R(None, None, -4)], flat=True, desc=":flat with a reversed open range")
read_case("index", "neg2d", 2, [S(-1), S(-2)], neg=True, desc=":neg, negative indices count from the end")
read_case("index", "neg_mixed2d", 2, [S(-4), S(1)], neg=True, desc=":neg with one negative, one ordinary index")
read_case("slice", "neg_range2d", 2, [R(-3, -1), C()], neg=True, desc=":neg range endpoints")
read_case("slice", "neg_range_rev2d", 2, [S(0), R(-1, 1, -2)], neg=True, desc=":neg reversed range")
read_case("index", "gather2d", 2, [G([3, 0, 0]), R(0, 2)], desc="gather with a repeated position, and a range")
read_case("index", "gather_both2d", 2, [G([1, 3]), G([4, 0, 2])], desc="gathers in both dimensions select the cross product")
read_case("index", "mask2d", 2, [M([T, F, T, T]), S(2)], desc="bool mask on the rows")
read_case("index", "mask_cols2d", 2, [C(), M([F, T, F, F, T])], desc="bool mask on the columns")
read_case("index", "mask_gather2d", 2, [M([F, F, T, T]), G([4, 4, 0])], desc="mask and gather together")

# reads, 1-D and 3-D
read_case("index", "scalar1d", 1, [S(4)], desc="1-D scalar index")
read_case("slice", "range1d", 1, [R(1, 5, 2)], desc="1-D range with step")
read_case("slice", "rev1d", 1, [R(None, None, -1)], desc="1-D reversal")
read_case("index", "neg1d", 1, [S(-2)], neg=True, desc="1-D :neg")
read_case("index", "gather1d", 1, [G([5, 0, 2, 2])], desc="1-D gather")
read_case("index", "mask1d", 1, [M([T, F, F, T, T, F])], desc="1-D mask")
read_case("index", "scalar3d", 3, [S(1), S(2), S(3)], desc="3-D scalar index")
read_case("slice", "implicit3d", 3, [S(1)], desc="3-D with one index: two implicit trailing ranges")
read_case("slice", "implicit3d_2", 3, [R(None, None, -1), S(0)], desc="3-D with two indices: one implicit trailing range")
read_case("slice", "range3d", 3, [C(), R(2, 0, -2), R(1, 3, 2)], desc="3-D ranges")
read_case("index", "flat3d", 3, [S(1), S(9)], flat=True, desc="3-D :flat with two indices: the last spans dims 1 and 2")
read_case("index", "flat3d_range", 3, [R(0, 1), R(3, 10, 7)], flat=True, desc="3-D :flat, ranges")
read_case("index", "flat3d_all", 3, [S(17)], flat=True, desc="3-D :flat with one index: all three dims")

# writes
write_case_gen("slice", "write_bcast_range2d", 2, [R(0, 2, 2), C()], 0.5, desc="write a scalar to every selected element")
write_case_gen("slice", "write_array_range2d", 2, [R(1, 2), R(1, 3)], np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), desc="write an array into a 2 x 3 selection")
write_case_gen("slice", "write_array_negstep2d", 2, [R(3, 0, -3), R(None, None, -2)], np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), desc="write an array through negative-step ranges")
write_case_gen("index", "write_elem2d", 2, [S(3), S(4)], -7.25, desc="write one element")
write_case_gen("index", "write_gather_dup2d", 2, [G([0, 2, 0]), S(1)], np.array([1.0, 2.0, 3.0]), desc="gather write naming a position twice: the last value stays")
write_case_gen("index", "write_mask2d", 2, [M([T, F, F, T]), C()], -1.0, desc="mask write with a scalar")
write_case_gen("index", "write_flat2d", 2, [R(3, 9, 2)], 0.0, flat=True, desc=":flat write of a scalar, in the layout's order")
write_case_gen("index", "write_flat_array2d", 2, [R(None, 2)], np.array([7.0, 8.0, 9.0]), flat=True, desc=":flat write of an array")
write_case_gen("index", "write_neg2d", 2, [S(-1), S(-5)], 9.5, neg=True, desc=":neg write")
write_case_gen("slice", "write_implicit2d", 2, [S(1)], np.array([5.0, 4.0, 3.0, 2.0, 1.0]), desc="write a row through an implicit trailing range")
write_case_gen("slice", "write_bcast1d", 1, [R(None, None, 2)], 0.0, desc="1-D scalar broadcast through a stepped open range")
write_case_gen("slice", "write_array3d", 3, [S(1), R(0, 1), S(2)], np.array([-1.0, -2.0]), desc="3-D write of a 1-D array into a 2-element selection")

# errors
error_read("oob_row", 2, [S(4), S(0)], "index out of bounds", "row index one past the end")
error_read("oob_col", 2, [S(0), Raw(-1)], "index out of bounds", "column index one before the first (0 in base 1, -1 in base 0 without :neg)")
error_read("oob_range", 2, [R(2, 4), C()], "index out of bounds", "a range whose stop is past the end")
error_read("oob_gather", 2, [G([0, 4]), S(0)], "index out of bounds", "a gather naming a position past the end")
error_read("oob_neg", 2, [S(-5), S(0)], "index out of bounds", ":neg index before the first element", neg=True, combos=[(l, 0) for l in ("row", "col", "strided")])

# ------------------------------------------------------------------ views vs copies

def alias_cases():
    """A view shares storage with its source in both directions; a copy shares none.
    NumPy basic slicing makes views, so NumPy computes both variants directly."""
    for lay, base in COMBOS:
        for view in (True, False):
            arg = B2() if lay == "strided" else A2()
            out = arg.copy()
            X = out[0:7:2, 0:9:2] if lay == "strided" else out   # a NumPy view
            V = X[1:3, 1:4]
            if not view:
                V = V.copy()
            V[0, 1] = 99.0      # through V
            X[2, 3] = -1.0      # through the source
            res_lay = "row" if lay == "strided" else lay
            vt = vr_type(2, "strided") if view else vr_type(2, res_lay)
            p, loc, setup, Xn = header(2, lay, base, [], None, "")
            loc += " (W %s)" % vt
            body = setup
            body += "    (set W (index %s (range %d %d) (range %d %d)%s))\n" % (
                Xn, 1 + base, 2 + base, 1 + base, 3 + base, " :view" if view else "")
            body += "    (set (index W %d %d) 99.0)\n" % (base, 1 + base)
            body += "    (set (index %s %d %d) -1.0)\n" % (Xn, 2 + base, 3 + base)
            src_name = "B" if lay == "strided" else "A"
            body += "    (return %s W)" % src_name
            stem = "view_aliases" if view else "copy_separate"
            name = "%s_%s_b%d" % (stem, lay, base)
            src = module(name, base, p, [vr_type(2, "row" if lay == "strided" else lay), vt], loc, body)
            run = "run: f(%s) == %s, %s" % (fmt_value(arg, "f64"), fmt_value(out, "f64"), fmt_value(V, "f64"))
            desc = ("a :view slice shares storage: writes through either name show in both"
                    if view else "a slice without :view is a copy: writes do not cross")
            note = desc + "\nlayout %s, index base %d; NumPy views / copies (positions shifted by the base)" % (lay, base)
            write_case("slice", name, src, "numpy", [run], note)


def shift_cases():
    """x[1..4] = x[0..3] through a view of x itself: the right side is read first."""
    for lay, base in COMBOS:
        arg = B1() if lay == "strided" else A1()
        out = arg.copy()
        X = out[1:12:2] if lay == "strided" else out
        X[1:5] = X[0:4]  # NumPy handles the overlap as a read-then-write
        p, loc, setup, Xn = header(1, lay, base, [], None, "")
        body = setup + "    (set (index %s (range %d %d)) (index %s (range %d %d) :view))\n" % (
            Xn, 1 + base, 4 + base, Xn, base, 3 + base)
        body += "    (return %s)" % ("B" if lay == "strided" else "A")
        name = "overlap_shift_%s_b%d" % (lay, base)
        src = module(name, base, p, [vr_type(1, "row" if lay == "strided" else lay)], loc, body)
        # Octave (no views) agrees: x(2:5) = x(1:4)
        okey = batch.octave(name, oct_setup(1, lay, arg) + "X(2:5) = X(1:4); " + (
            "B(Q0) = X; r = B;" if lay == "strided" else "r = X;"))
        run = "run: f(%s) == %s" % (fmt_value(arg, "f64"), fmt_value(out, "f64"))
        pending.append(("slice", name, src, base, okey, out, [run],
                        "a write whose value is an overlapping view of the target: values are read before any is stored", lay))


def mismatch_cases():
    for lay, base in COMBOS:
        arg = B2() if lay == "strided" else A2()
        w = np.array([[1.0, 2.0], [3.0, 4.0]])
        out = arg.copy()
        X = out[0:7:2, 0:9:2] if lay == "strided" else out
        try:
            X[0:2, 0:3] = w
            raise SystemExit("numpy accepted a mismatched write")
        except ValueError as e:
            msg = str(e)
        p, loc, setup, Xn = header(2, lay, base, ["(w f64[2,row])"], None, "")
        body = setup + "    (set (index %s (range %d %d) (range %d %d)) w)\n" % (Xn, base, 1 + base, base, 2 + base)
        body += "    (return %s)" % ("B" if lay == "strided" else "A")
        name = "write_shape_mismatch_%s_b%d" % (lay, base)
        src = module(name, base, p, [vr_type(2, "row" if lay == "strided" else lay)], loc, body)
        run = "error: f(%s, %s) => shape mismatch" % (fmt_value(arg, "f64"), fmt_value(w, "f64"))
        note = "a 2 x 2 value stored into a 2 x 3 selection\nlayout %s, index base %d; NumPy raises ValueError: %s" % (lay, base, msg)
        write_case("errors", name, src, "numpy", [run], note)


write_case_gen("index", "write_flat3d", 3, [S(1), R(2, 11, 3)], np.array([-1.0, -2.0, -3.0, -4.0]), flat=True, desc="3-D :flat write: the second index spans dims 1 and 2 in layout order")
write_case_gen("slice", "write_neg_range2d", 2, [R(-1, -3, -1), S(-1)], np.array([7.0, 8.0, 9.0]), neg=True, desc=":neg reversed range write")
write_case_gen("index", "write_mask_gather2d", 2, [M([F, T, F, T]), G([4, 0])], np.array([[1.0, 2.0], [3.0, 4.0]]), desc="mask rows and gather columns, write a 2 x 2 array")
write_case_gen("index", "write_gather3d", 3, [G([1, 0]), S(2), M([T, F, F, T])], 0.0, desc="3-D write through a gather, a scalar and a mask")


def error_write(stem, nd, indices, desc, neg=False):
    """Out-of-bounds writes. Octave grows arrays on such writes, so NumPy (IndexError)
    is the host here."""
    for lay, base in COMBOS:
        arg, X = source_array(nd, lay)
        try:
            np_write(arg, nd, lay, indices, 1.0, False)
            raise SystemExit("%s: numpy accepted the write" % stem)
        except IndexError as e:
            msg = str(e)
        p, loc, setup, Xn = header(nd, lay, base, [], None, "")
        ixs = " ".join(vr_index(ix, base, neg, k) for k, ix in enumerate(indices))
        body = setup + "    (set (index %s %s%s) 1.0)\n    (return %s)" % (Xn, ixs, flags_text(neg), "B" if lay == "strided" else "A")
        name = "%s_%s_b%d" % (stem, lay, base)
        src = module(name, base, p, [vr_type(nd, "row" if lay == "strided" else lay)], loc, body)
        run = "error: f(%s) => index out of bounds" % fmt_value(arg, "f64")
        write_case("errors", name, src, "numpy", [run], desc + "\nlayout %s, index base %d; NumPy raises IndexError: %s" % (lay, base, msg))


error_write("oob_write_col", 2, [S(1), S(5)], "write to a column one past the end")
error_write("oob_write_neg", 2, [S(-5), S(0)], "write with a :neg index before the first row", neg=True)

alias_cases()
shift_cases()
mismatch_cases()

batch.run()
for job in pending:
    if isinstance(job[5], tuple) and job[5] and isinstance(job[5][0], str):
        check_error_and_write(*job)
    else:
        check_and_write(*job)
print("wrote %d files" % len(pending))
