#!/usr/bin/env python3
"""Generate tests/vrir/opt: cases aimed at the optimizer's bounds-check elimination
(docs/optimizer.md).  Each loop nest below is one the passes transform; the run lines
cover both sides of loop versioning: inputs for which the test before the nest holds
(the check-free copy runs) and inputs for which it fails (the checked copy runs and
must raise the interpreter's error, or must still compute the right values when the
test is only conservative).  Expected values come from NumPy or from the hand
calculation stated beside them.  Run from anywhere: python3 tests/vrir/tools/gen_opt.py
"""
import numpy as np

from common import fmt_value as V, write_case


def fn(name, base, sig, body):
    return "(module %s :index-base %d\n  (function f %s\n%s))\n" % (name, base, sig, body)


def arr(xs):
    return V(np.array(xs, dtype=float), "f64")


# ------------------------------------------------ 1-D prefix sum, 0-based
a = [1.5, -2.0, 4.0, 0.25, 3.0]
write_case("opt", "prefix_sum_b0", fn("prefix_sum_b0", 0, "((a f64[1,row]) (n i64)) (f64)",
    "    (locals (i i64) (s f64))\n    (set s 0.0)\n"
    "    (for (i) (range 0 n)\n      (block (set s (+ s (index a i)))))\n    (return s)"),
    "numpy",
    ["run: f(%s, %d) == %s" % (arr(a), n, V(np.sum(np.array(a)[:n + 1]), "f64")) for n in (-1, 0, 2, 4)]
    + ["error: f(%s, 5) => index out of bounds" % arr(a),
       "error: f(%s, 9) => index out of bounds" % arr(a)],
    "sum of a[0..n] (stops are inclusive); n = 5 reads one past the end: the versioning\n"
    "test fails and the checked loop raises the error")

# ------------------------------------------------ neighbour products, 1-based
a = [2.0, 3.0, -1.0, 0.5, 4.0]
def nb(a, n):
    x = np.array(a)
    return float(sum(x[i - 2] * x[i - 1] for i in range(2, n + 1)))
write_case("opt", "neighbours_b1", fn("neighbours_b1", 1, "((a f64[1,col]) (n i64)) (f64)",
    "    (locals (i i64) (s f64))\n    (set s 0.0)\n"
    "    (for (i) (range 2 n)\n      (block (set s (+ s (* (index a (- i 1)) (index a i))))))\n    (return s)"),
    "numpy",
    ["run: f(%s, %d) == %s" % (arr(a), n, V(nb(a, n), "f64")) for n in (1, 2, 5)]
    + ["error: f(%s, 6) => index out of bounds" % arr(a)],
    "1-based: sum over i = 2..n of a(i-1) * a(i); n = 6 reads a(6) of 5")

# ------------------------------------------------ reversal with a negative step
a = [1.0, 2.0, 3.0, 4.0]
write_case("opt", "reverse_negative_step", fn("reverse_negative_step", 0,
    "((a f64[1,row]) (out f64[1,row]) (n i64)) (f64[1,row])",
    "    (locals (i i64))\n"
    "    (for (i) (range n 0 -1)\n      (block (set (index out (- n i)) (index a i))))\n    (return out)"),
    "numpy",
    ["run: f(%s, [0.0, 0.0, 0.0, 0.0], 3) == %s" % (arr(a), V(np.array(a)[::-1], "f64")),
     "run: f(%s, [0.0, 0.0, 0.0, 0.0], 1) == %s" % (arr(a), V(np.array([2.0, 1.0, 0.0, 0.0]), "f64")),
     "error: f(%s, [0.0, 0.0, 0.0, 0.0], 4) => index out of bounds" % arr(a)],
    "i runs n, n-1, ..., 0 and out[n - i] = a[i]; n = 4 reads a[4] first")

# ------------------------------------------------ triangular nest (bounds affine in i)
m = np.arange(1.0, 17.0).reshape(4, 4)
write_case("opt", "lower_triangle_sum", fn("lower_triangle_sum", 0, "((m f64[2,row]) (n i64)) (f64)",
    "    (locals (i i64) (j i64) (s f64))\n    (set s 0.0)\n"
    "    (for (i) (range 0 (- n 1))\n      (block\n        (for (j) (range 0 i)\n"
    "          (block (set s (+ s (index m i j)))))))\n    (return s)"),
    "numpy",
    ["run: f(%s, %d) == %s" % (V(m, "f64"), n, V(np.tril(m[:n, :n]).sum(), "f64")) for n in (0, 3, 4)]
    + ["error: f(%s, 5) => index out of bounds" % V(m, "f64")],
    "sum of m[i, j] for j <= i < n (the inner stop is the outer index)")

# ------------------------------------------------ :neg subscripts (test fails, still right)
a = [1.0, 2.0, 4.0, 8.0]
x = np.array(a)
write_case("opt", "neg_previous", fn("neg_previous", 0, "((a f64[1,row])) (f64)",
    "    (locals (i i64) (s f64))\n    (set s 0.0)\n"
    "    (for (i) (range 0 (- (dim a 0) 1))\n      (block (set s (+ s (* (index a i) (index a (- i 1) :neg))))))\n    (return s)"),
    "numpy",
    ["run: f(%s) == %s" % (arr(a), V(sum(x[i] * x[i - 1] for i in range(4)), "f64"))],
    "a[i] * a[i-1] with NumPy's negative indexing: i = 0 pairs a[0] with a[-1] = a[3];\n"
    "the subscript's least value is -1, so versioning keeps the checked loop")

# ------------------------------------------------ window bounds through min / max
a = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0]
def window(a, r):
    x = np.array(a)
    return np.array([x[max(i - r, 0):min(i + r + 1, len(x))].sum() for i in range(len(x))])
write_case("opt", "window_sum", fn("window_sum", 0,
    "((a f64[1,row]) (out f64[1,row]) (r i64)) (f64[1,row])",
    "    (locals (i i64) (j i64) (n i64) (s f64))\n    (set n (dim a 0))\n"
    "    (for (i) (range 0 (- n 1))\n      (block\n        (set s 0.0)\n"
    "        (for (j) (range (max (- i r) 0) (- (min (+ (+ i r) 1) n) 1))\n"
    "          (block (set s (+ s (index a j)))))\n        (set (index out i) s)))\n    (return out)"),
    "numpy",
    ["run: f(%s, %s, %d) == %s" % (arr(a), arr([0.0] * 6), r, V(window(a, r), "f64")) for r in (0, 1, 2, 7)]
    + ["error: f(%s, %s, 1) => index out of bounds" % (arr(a), arr([0.0] * 5))],
    "out[i] = sum of a[max(i-r, 0) .. min(i+r+1, n) - 1] (the growcut window);\n"
    "an out shorter than a fails at out[5]")

# ------------------------------------------------ flat subscripts over a matrix
m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
write_case("opt", "flat_sum", fn("flat_sum", 0, "((m f64[2,row]) (n i64)) (f64)",
    "    (locals (i i64) (s f64))\n    (set s 0.0)\n"
    "    (for (i) (range 0 (- n 1))\n      (block (set s (+ (* s 2.0) (index m i :flat)))))\n    (return s)"),
    "numpy",
    ["run: f(%s, 6) == %s" % (V(m, "f64"), V(float(sum(v * 2.0 ** (5 - k) for k, v in enumerate(m.ravel()))), "f64")),
     "error: f(%s, 7) => index out of bounds" % V(m, "f64")],
    ":flat spans both dimensions (extent 6, row-major order):\n"
    "s = ((((1*2+2)*2+3)*2+4)*2+5)*2+6 = 120; n = 7 reads position 6")

# ------------------------------------------------ the array is reassigned in the loop
write_case("opt", "reassigned_in_loop", fn("reassigned_in_loop", 0, "((n i64)) (i64)",
    "    (locals (i i64) (s i64) (b i64[1,row]))\n    (set s 0)\n"
    "    (for (i) (range 0 n)\n      (block\n        (set b (zeros i64[1,row] (+ i 1)))\n"
    "        (set (index b i) i)\n        (set s (+ s (index b i)))))\n    (return s)"),
    "hand",
    ["run: f(3) == 6"],
    "b is a fresh array of i+1 elements each time: s = 0+1+2+3; its checks must stay")

# ------------------------------------------------ a local read only on a path never taken
write_case("opt", "unassigned_array_not_read", fn("unassigned_array_not_read", 0,
    "((a f64[1,row]) (use_b bool)) (f64)",
    "    (locals (i i64) (s f64) (b f64[1,row]))\n    (set s 0.0)\n"
    "    (for (i) (range 0 (- (dim a 0) 1))\n      (block\n        (set s (+ s (index a i)))\n"
    "        (if use_b (block (set s (+ s (index b i)))))))\n    (return s)"),
    "hand",
    ["run: f([1.0, 2.0], false) == 3.0",
     "error: f([1.0, 2.0], true) => runtime error"],
    "b is never assigned: the loop must not read its extent before running (unassigned\n"
    "variable error only when the branch reading b runs)")

# ------------------------------------------------ repeated access, then the index changes
write_case("opt", "repeat_then_reassign", fn("repeat_then_reassign", 0, "((a i64[1,row]) (k i64)) (i64)",
    "    (locals (s i64) (i i64))\n    (set i k)\n"
    "    (set s (* (index a i) (index a i)))\n    (set i (+ i 1))\n    (set s (+ s (index a i)))\n    (return s)"),
    "hand",
    ["run: f([3, 5, 7], 0) == 14", "run: f([3, 5, 7], 1) == 32",
     "error: f([3, 5, 7], 2) => index out of bounds",
     "error: f([3, 5, 7], 3) => index out of bounds"],
    "a[k]*a[k] + a[k+1]: the second a[k] is known in bounds, a[k+1] is not (k = 2 fails there)")

print("opt written")
