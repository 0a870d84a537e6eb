#!/usr/bin/env python3
"""Generate the non-indexing part of the conformance suite: scalars, arithmetic, casts,
control flow, calls, library, matmul, reductions, allocation, map, parfor, tuples,
complex numbers, layouts and run-time errors.  Expected values are computed here by
NumPy (or R / Octave where named) or written by hand with the reasoning beside them.
Run from anywhere: python3 tests/vrir/tools/gen_misc.py
"""
import math

import numpy as np

from common import fmt_value as V, fmt_float, rscript, write_case

np.seterr(all="ignore")


def case(folder, name, expected, src, runs, note=None):
    write_case(folder, name, src, expected, runs, note)


def fn(name, base, sig, body, extra=""):
    """A one-function module; `sig` is '((x f64)) (f64)', body the statements."""
    return "(module %s :index-base %d\n  (function f %s\n%s))%s\n" % (name, base, sig, body, extra)


def f64(x):
    return fmt_float(x)


# =================================================================== scalar
case("scalar", "const_i64", "hand",
     fn("const_i64", 0, "() (i64)", "    (locals)\n    (return 42)"),
     ["run: f() == 42"])
case("scalar", "const_i32", "hand",
     fn("const_i32", 0, "() (i32)", "    (locals)\n    (return -7:i32)"),
     ["run: f() == -7"])
case("scalar", "const_f32", "numpy",
     fn("const_f32", 0, "() (f32)", "    (locals)\n    (return 0.1:f32)"),
     ["run: f() == %s" % V(np.float32(0.1), "f32")],
     "0.1:f32 is the f32 nearest 0.1; read back as f32 it compares equal")
case("scalar", "const_bool", "hand",
     fn("const_bool", 0, "() (bool bool)", "    (locals)\n    (return true false)"),
     ["run: f() == true, false"])
case("scalar", "const_special_floats", "hand",
     fn("const_special_floats", 0, "() (f64 f64 f64 f64)", "    (locals)\n    (return nan inf -inf -0.0)"),
     ['run: f() == "nan", "inf", "-inf", -0.0'])
case("scalar", "identity_f64", "hand",
     fn("identity_f64", 0, "((x f64)) (f64)", "    (locals)\n    (return x)"),
     ["run: f(3.25) == 3.25", 'run: f("nan") == "nan"', 'run: f("-inf") == "-inf"', "run: f(1e-300) == 1e-300"])
case("scalar", "locals_reassign", "hand",
     fn("locals_reassign", 0, "((x i64)) (i64)",
        "    (locals (a i64) (b i64))\n    (set a x)\n    (set b (+ a 1))\n    (set a (* b 2))\n    (set b 0)\n    (return a)"),
     ["run: f(4) == 10", "run: f(-1) == 0"], "a = x; b = a + 1; a = b * 2: a is 2(x+1)")
case("scalar", "logic_truth_table", "hand",
     fn("logic_truth_table", 0, "((a bool) (b bool)) (bool bool bool)",
        "    (locals)\n    (return (and a b) (or a b) (not a))"),
     ["run: f(false, false) == false, false, true", "run: f(false, true) == false, true, true",
      "run: f(true, false) == false, true, false", "run: f(true, true) == true, true, false"])
case("scalar", "short_circuit", "hand",
     fn("short_circuit", 0, "((z i64)) (bool bool)",
        "    (locals)\n    (return (or true (== (/ 1 z) 0)) (and false (== (/ 1 z) 0)))"),
     ["run: f(0) == true, false"],
     "`and`/`or` on bool scalars short-circuit: the division by zero is never evaluated")
x, y = 1.0, float("nan")
case("scalar", "nan_comparisons", "numpy",
     fn("nan_comparisons", 0, "((x f64) (y f64)) (bool bool bool bool bool bool)",
        "    (locals)\n    (return (< x y) (<= x y) (> x y) (>= x y) (== y y) (!= y y))"),
     ["run: f(1.0, \"nan\") == %s" % ", ".join(V(v, "bool") for v in
                                             (x < y, x <= y, x > y, x >= y, y == y, y != y))],
     "comparisons with NaN are false except !=")
s32 = np.float32(0.1) + np.float32(0.2)
case("scalar", "f32_arith", "numpy",
     fn("f32_arith", 0, "() (f32 f64)", "    (locals)\n    (return (+ 0.1:f32 0.2:f32) (+ 0.1 0.2))"),
     ["run: f() == %s, %s" % (V(s32, "f32"), f64(0.1 + 0.2))],
     "f32 arithmetic rounds to f32 (0.3), f64 does not (0.30000000000000004)")
case("scalar", "compare_ints", "hand",
     fn("compare_ints", 0, "((a i32) (b i32)) (bool bool bool)",
        "    (locals)\n    (return (< a b) (== a b) (!= a b))"),
     ["run: f(-3, 2) == true, false, true", "run: f(5, 5) == false, true, false"])
case("scalar", "bool_equality", "hand",
     fn("bool_equality", 0, "((a bool) (b bool)) (bool)", "    (locals)\n    (return (== a b))"),
     ["run: f(true, true) == true", "run: f(true, false) == false"])

# =================================================================== arith
def c_trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3)]
case("arith", "int_div_truncates", "hand",
     fn("int_div_truncates", 0, "((a i64) (b i64)) (i64)", "    (locals)\n    (return (/ a b))"),
     ["run: f(%d, %d) == %d" % (a, b, c_trunc_div(a, b)) for a, b in pairs],
     "integer / truncates toward zero (C): -7 / 2 = -3")
case("arith", "idiv_floors", "numpy",
     fn("idiv_floors", 0, "((a i64) (b i64)) (i64)", "    (locals)\n    (return (idiv a b))"),
     ["run: f(%d, %d) == %d" % (a, b, np.floor_divide(a, b)) for a, b in pairs])
mp = [(7, 3), (-7, 3), (7, -3), (-7, -3), (6, 3)]
case("arith", "mod_sign_of_divisor", "r",
     fn("mod_sign_of_divisor", 0, "((a i64) (b i64)) (i64)", "    (locals)\n    (return (mod a b))"),
     ["run: f(%d, %d) == %s" % (a, b, rscript("%dL %%%% %dL" % (a, b))[0]) for a, b in mp],
     "R's %% (and NumPy's %): the result takes the divisor's sign")
case("arith", "mod_i32", "numpy",
     fn("mod_i32", 0, "((a i32) (b i32)) (i32 i32)", "    (locals)\n    (return (mod a b) (idiv a b))"),
     ["run: f(%d, %d) == %d, %d" % (a, b, np.int32(a) % np.int32(b), np.int32(a) // np.int32(b)) for a, b in mp])
fm = [(-7.5, 2.0), (5.5, -2.0), (7.5, 2.0), (-1.0, 3.0)]
case("arith", "float_mod_idiv", "r",
     fn("float_mod_idiv", 0, "((a f64) (b f64)) (f64 f64)", "    (locals)\n    (return (mod a b) (idiv a b))"),
     ["run: f(%s, %s) == %s, %s" % (f64(a), f64(b), f64(float(rscript("%r %%%% %r" % (a, b))[0])),
                                    f64(float(rscript("%r %%/%% %r" % (a, b))[0]))) for a, b in fm],
     "float mod is a - floor(a/b)*b and idiv floor(a/b), as R's %% and %/%")
case("arith", "float_div_ieee", "numpy",
     fn("float_div_ieee", 0, "((a f64) (b f64)) (f64)", "    (locals)\n    (return (/ a b))"),
     ["run: f(%s, %s) == %s" % (f64(a), f64(b), f64(np.float64(a) / np.float64(b)))
      for a, b in [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, 3.0), (1.0, -0.0)]],
     "float division follows IEEE 754: no error on zero")
imax = np.iinfo(np.int64).max
case("arith", "i64_wraps", "numpy",
     fn("i64_wraps", 0, "((a i64) (b i64)) (i64 i64 i64)", "    (locals)\n    (return (+ a b) (- (neg a) b) (* a b))"),
     ["run: f(%d, 1) == %d, %d, %d" % (imax, np.int64(imax) + np.int64(1), -np.int64(imax) - np.int64(1), np.int64(imax) * np.int64(1)),
      "run: f(%d, 2) == %d, %d, %d" % (imax, np.int64(imax) + np.int64(2), -np.int64(imax) - np.int64(2), np.int64(imax) * np.int64(2))],
     "two's complement wrap-around (NumPy int64 arithmetic)")
case("arith", "i32_wraps", "numpy",
     fn("i32_wraps", 0, "((a i32) (b i32)) (i32 i32)", "    (locals)\n    (return (+ a b) (* a a))"),
     ["run: f(2147483647, 1) == %d, %d" % (np.int32(2147483647) + np.int32(1), np.int32(2147483647) * np.int32(2147483647)),
      "run: f(65536, 0) == %d, %d" % (np.int32(65536) + np.int32(0), np.int32(65536) * np.int32(65536))])
imin = -2**63
case("arith", "min_div_minus_one", "hand",
     fn("min_div_minus_one", 0, "((a i64)) (i64 i64 i64 i64)",
        "    (locals)\n    (return (/ a -1) (mod a -1) (rem a -1) (neg a))"),
     ["run: f(%d) == %d, 0, 0, %d" % (imin, imin, imin)],
     "MIN / -1 wraps to MIN and its mod / rem is 0; neg MIN is MIN (semantics)")
case("arith", "nested_expr", "hand",
     fn("nested_expr", 0, "((x i64)) (i64)", "    (locals)\n    (return (+ (* 2 x) (- 10 (idiv x 2))))"),
     ["run: f(3) == 15", "run: f(-3) == 6"], "2*3 + (10 - 1) = 15; -6 + (10 - (-2)) = 6")
a = np.array([1.0, 2.5, -4.0])
case("arith", "array_plus_scalar", "numpy",
     fn("array_plus_scalar", 0, "((x f64[1,row])) (f64[1,row] f64[1,row])",
        "    (locals)\n    (return (+ x 10.0) (- 10.0 x))"),
     ["run: f(%s) == %s, %s" % (V(a, "f64"), V(a + 10.0, "f64"), V(10.0 - a, "f64"))])
A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
B = np.array([[0.5, -1.0, 2.0], [8.0, 0.25, -6.0]])
case("arith", "array_array_col", "octave",
     fn("array_array_col", 1, "((a f64[2,col]) (b f64[2,col])) (f64[2,col] f64[2,col] f64[2,col])",
        "    (locals)\n    (return (+ a b) (* a b) (/ a b))"),
     ["run: f(%s, %s) == %s, %s, %s" % (V(A, "f64"), V(B, "f64"), V(A + B, "f64"), V(A * B, "f64"), V(A / B, "f64"))],
     "element-wise over column-major arrays: results in logical order (a + b, a .* b, a ./ b)")
case("arith", "array_mixed_layouts", "numpy",
     fn("array_mixed_layouts", 0, "((a f64[2,col]) (b f64[2,row])) (f64[2,col])",
        "    (locals)\n    (return (- a b))"),
     ["run: f(%s, %s) == %s" % (V(A, "f64"), V(B, "f64"), V(A - B, "f64"))],
     "operands of different layouts combine by logical index; the result has the first array's layout")
case("arith", "array_compare", "numpy",
     fn("array_compare", 0, "((x f64[1,row]) (t f64)) (bool[1,row] bool[1,row])",
        "    (locals)\n    (return (< x t) (== x t))"),
     ["run: f(%s, 2.5) == %s, %s" % (V(a, "f64"), V(a < 2.5, "bool"), V(a == 2.5, "bool"))])
p_ = np.array([True, True, False, False]); q_ = np.array([True, False, True, False])
case("arith", "array_logic", "numpy",
     fn("array_logic", 0, "((p bool[1,row]) (q bool[1,row])) (bool[1,row] bool[1,row] bool[1,row])",
        "    (locals)\n    (return (and p q) (or p q) (not p))"),
     ["run: f(%s, %s) == %s, %s, %s" % (V(p_, "bool"), V(q_, "bool"), V(p_ & q_, "bool"), V(p_ | q_, "bool"), V(~p_, "bool"))])
ia = np.array([7, -7, 9], dtype=np.int64)
case("arith", "array_int_ops", "numpy",
     fn("array_int_ops", 0, "((x i64[1,row])) (i64[1,row] i64[1,row] i64[1,row])",
        "    (locals)\n    (return (mod x 4) (idiv x 4) (neg x))"),
     ["run: f(%s) == %s, %s, %s" % (V(ia, "i64"), V(ia % 4, "i64"), V(ia // 4, "i64"), V(-ia, "i64"))])
fa = np.array([0.1, 0.2, 0.7], dtype=np.float32)
case("arith", "f32_array", "numpy",
     fn("f32_array", 0, "((x f32[1,row])) (f32[1,row])", "    (locals)\n    (return (* (+ x 0.2:f32) 3.0:f32))"),
     ["run: f(%s) == %s" % (V(fa, "f32"), V((fa + np.float32(0.2)) * np.float32(3.0), "f32"))],
     "f32 element-wise: every operation rounds to f32")
case("arith", "i32_div", "hand",
     fn("i32_div", 0, "((a i32) (b i32)) (i32 i32)", "    (locals)\n    (return (/ a b) (rem a b))"),
     ["run: f(-9, 4) == -2, -1", "run: f(9, -4) == -2, 1"], "C semantics: -9/4 = -2 rem -1")

# =================================================================== cast
vals = [2.7, -2.7, 0.5, -0.0, 1e15]
case("cast", "f64_to_i64_truncates", "numpy",
     fn("f64_to_i64_truncates", 0, "((x f64)) (i64)", "    (locals)\n    (return (cast i64 x))"),
     ["run: f(%s) == %d" % (f64(v), np.float64(v).astype(np.int64)) for v in vals])
case("cast", "f64_to_i32", "numpy",
     fn("f64_to_i32", 0, "((x f64)) (i32)", "    (locals)\n    (return (cast i32 x))"),
     ["run: f(%s) == %d" % (f64(v), np.float64(v).astype(np.int32)) for v in (2147483647.9, -2147483648.5, -3.99)],
     "in range after truncation toward zero")
case("cast", "i64_to_f64_rounds", "numpy",
     fn("i64_to_f64_rounds", 0, "((x i64)) (f64)", "    (locals)\n    (return (cast f64 x))"),
     ["run: f(%d) == %s" % (v, f64(np.float64(np.int64(v)))) for v in (9007199254740993, -3, imax)],
     "integer to float rounds to nearest (2^53 + 1 -> 2^53)")
case("cast", "i64_to_i32_wraps", "numpy",
     fn("i64_to_i32_wraps", 0, "((x i64)) (i32)", "    (locals)\n    (return (cast i32 x))"),
     ["run: f(%d) == %d" % (v, np.int64(v).astype(np.int32)) for v in (4294967297, 2147483648, -1, -4294967296)])
case("cast", "to_bool", "numpy",
     fn("to_bool", 0, "((x i64) (y f64)) (bool bool)", "    (locals)\n    (return (cast bool x) (cast bool y))"),
     ["run: f(%d, %s) == %s, %s" % (i, f64(y), V(bool(i), "bool"), V(bool(y), "bool"))
      for i, y in [(5, 0.5), (0, -0.0), (-1, float("nan")), (0, 0.0)]],
     "anything to bool is != 0; NaN != 0 is true")
case("cast", "from_bool", "hand",
     fn("from_bool", 0, "((b bool)) (i32 f64)", "    (locals)\n    (return (cast i32 b) (cast f64 b))"),
     ["run: f(true) == 1, 1.0", "run: f(false) == 0, 0.0"])
case("cast", "f64_to_f32_rounds", "numpy",
     fn("f64_to_f32_rounds", 0, "((x f64)) (f32)", "    (locals)\n    (return (cast f32 x))"),
     ["run: f(%s) == %s" % (f64(v), V(np.float32(v), "f32")) for v in (0.1, 1e40, -1e-50, 16777217.0)],
     "round to nearest f32; overflow gives inf (IEEE), tiny values 0")
case("cast", "f32_to_f64_exact", "numpy",
     fn("f32_to_f64_exact", 0, "() (f64)", "    (locals)\n    (return (cast f64 0.1:f32))"),
     ["run: f() == %s" % f64(np.float64(np.float32(0.1)))])
case("cast", "i64_to_f32", "numpy",
     fn("i64_to_f32", 0, "((x i64)) (f32)", "    (locals)\n    (return (cast f32 x))"),
     ["run: f(16777217) == %s" % V(np.float32(16777217), "f32")])
case("cast", "real_to_complex", "numpy",
     fn("real_to_complex", 0, "((x f64) (n i32)) (c128 c64)", "    (locals)\n    (return (cast c128 x) (cast c64 n))"),
     ["run: f(2.5, -3) == %s, %s" % (V(np.complex128(2.5), "c128"), V(np.complex64(-3), "c64"))])
Af = np.array([[1.9, -1.9, 0.0], [2.5, -2.5, 7.0]])
case("cast", "array_cast_layout", "numpy",
     fn("array_cast_layout", 0, "((a f64[2,row])) (i32[2,col] i32)",
        "    (locals (b i32[2,col]))\n    (set b (cast i32[2,col] a))\n    (return b (index b 1 :flat))"),
     ["run: f(%s) == %s, %d" % (V(Af, "f64"), V(Af.astype(np.int32), "i32"), Af.astype(np.int32).flatten(order="F")[1])],
     "element-wise cast that also changes the layout: same logical values, column-major storage\n(the :flat read sees column order)")
case("cast", "complex_widen", "numpy",
     fn("complex_widen", 0, "((z c64)) (c128)", "    (locals)\n    (return (cast c128 z))"),
     ['run: f({"re": 0.5, "im": -0.25}) == {"re": 0.5, "im": -0.25}'])

# =================================================================== control
case("control", "if_else_sign", "hand",
     fn("if_else_sign", 0, "((x f64)) (i64)",
        "    (locals (s i64))\n    (if (> x 0.0)\n      (block (set s 1))\n      (block\n        (if (< x 0.0) (block (set s -1)) (block (set s 0)))))\n    (return s)"),
     ["run: f(2.5) == 1", "run: f(-0.5) == -1", "run: f(0.0) == 0", 'run: f("nan") == 0'])
case("control", "if_no_else", "hand",
     fn("if_no_else", 0, "((x i64)) (i64)",
        "    (locals (y i64))\n    (set y x)\n    (if (< y 0) (block (set y (neg y))))\n    (return y)"),
     ["run: f(-4) == 4", "run: f(4) == 4"])
case("control", "for_sum_inclusive", "hand",
     fn("for_sum_inclusive", 0, "((n i64)) (i64)",
        "    (locals (i i64) (s i64))\n    (set s 0)\n    (for (i) (range 1 n)\n      (block (set s (+ s i))))\n    (return s)"),
     ["run: f(10) == 55", "run: f(1) == 1", "run: f(0) == 0", "run: f(100) == 5050"],
     "ranges include their stop: 1 + ... + n = n(n+1)/2")
case("control", "for_negative_step", "hand",
     fn("for_negative_step", 0, "() (i64)",
        "    (locals (i i64) (s i64))\n    (set s 0)\n    (for (i) (range 3 1 -1)\n      (block (set s (+ (* s 10) i))))\n    (return s)"),
     ["run: f() == 321"])
case("control", "for_step_not_reaching_stop", "hand",
     fn("for_step_not_reaching_stop", 0, "() (i64 i64)",
        "    (locals (i i64) (c i64))\n    (set c 0)\n    (for (i) (range 1 6 2)\n      (block (set c (+ c 1))))\n    (return c i)"),
     ["run: f() == 3, 5"], "1, 3, 5 (7 would pass 6); after the loop i holds the last point, 5")
case("control", "for_zero_iterations", "hand",
     fn("for_zero_iterations", 0, "() (i64 i64)",
        "    (locals (i i64) (c i64))\n    (set i 7)\n    (set c 0)\n    (for (i) (range 1 0)\n      (block (set c (+ c 1))))\n    (return i c)"),
     ["run: f() == 7, 0"], "a loop of zero iterations leaves its variable unchanged")
case("control", "for_var_reassigned", "hand",
     fn("for_var_reassigned", 0, "() (i64)",
        "    (locals (i i64) (s i64))\n    (set s 0)\n    (for (i) (range 0 4)\n      (block\n        (set s (+ s i))\n        (set i 100)))\n    (return s)"),
     ["run: f() == 10"], "assigning the loop variable lasts only until the next iteration: 0+1+2+3+4")
case("control", "for_range_evaluated_once", "hand",
     fn("for_range_evaluated_once", 0, "((n i64)) (i64)",
        "    (locals (i i64) (c i64) (m i64))\n    (set m n)\n    (set c 0)\n    (for (i) (range 1 m)\n      (block\n        (set m 0)\n        (set c (+ c 1))))\n    (return c)"),
     ["run: f(5) == 5"], "the domain is evaluated once, before the first iteration")
case("control", "for_domain_order", "hand",
     fn("for_domain_order", 0, "() (i64[1,row])",
        "    (locals (i i64) (j i64) (k i64) (out i64[1,row]))\n    (set out (zeros i64[1,row] 6))\n    (set k 0)\n"
        "    (for (i j) (domain (range 0 1) (range 0 2))\n      (block\n        (set (index out k) (+ (* 10 i) j))\n        (set k (+ k 1))))\n    (return out)"),
     ["run: f() == [0, 1, 2, 10, 11, 12]"], "the first loop variable varies slowest")
case("control", "for_domain_base1", "hand",
     fn("for_domain_base1", 1, "((a f64[2,col])) (f64)",
        "    (locals (i i64) (j i64) (s f64))\n    (set s 0.0)\n"
        "    (for (i j) (domain (range 1 (dim a 0)) (range 1 (dim a 1)))\n      (block (set s (+ (* s 2.0) (index a i j)))))\n    (return s)"),
     ["run: f([[1.0, 0.0], [1.0, 1.0]]) == 11.0"],
     "visits a(1,1), a(1,2), a(2,1), a(2,2): s = ((1*2+0)*2+1)*2+1 = 11")
case("control", "while_collatz", "hand",
     fn("while_collatz", 0, "((n i64)) (i64)",
        "    (locals (x i64) (steps i64))\n    (set x n)\n    (set steps 0)\n    (while (!= x 1)\n      (block\n"
        "        (if (== (mod x 2) 0) (block (set x (idiv x 2))) (block (set x (+ (* 3 x) 1))))\n        (set steps (+ steps 1))))\n    (return steps)"),
     ["run: f(1) == 0", "run: f(6) == 8", "run: f(27) == 111"],
     "Collatz step counts (6 -> 3 -> 10 -> 5 -> 16 -> 8 -> 4 -> 2 -> 1)")
case("control", "break_first_above", "hand",
     fn("break_first_above", 0, "((x f64[1,row]) (t f64)) (i64)",
        "    (locals (i i64) (k i64))\n    (set k -1)\n    (for (i) (range 0 (- (len x) 1))\n      (block\n"
        "        (if (> (index x i) t) (block (set k i) (break)))))\n    (return k)"),
     ["run: f([1.0, 5.0, 2.0, 7.0], 4.0) == 1", "run: f([1.0, 5.0, 2.0, 7.0], 6.0) == 3", "run: f([1.0, 5.0], 9.0) == -1"])
case("control", "continue_odd_sum", "hand",
     fn("continue_odd_sum", 0, "((n i64)) (i64)",
        "    (locals (i i64) (s i64))\n    (set s 0)\n    (for (i) (range 1 n)\n      (block\n"
        "        (if (== (mod i 2) 0) (block (continue)))\n        (set s (+ s i))))\n    (return s)"),
     ["run: f(10) == 25", "run: f(1) == 1"], "1+3+5+7+9")
case("control", "break_inner_only", "hand",
     fn("break_inner_only", 0, "() (i64)",
        "    (locals (i i64) (j i64) (c i64))\n    (set c 0)\n    (for (i) (range 1 3)\n      (block\n"
        "        (for (j) (range 1 3)\n          (block\n            (if (> j i) (block (break)))\n            (set c (+ c 1))))))\n    (return c)"),
     ["run: f() == 6"], "break leaves only the inner loop: 1 + 2 + 3 inner iterations")
case("control", "while_break", "hand",
     fn("while_break", 0, "() (i64)",
        "    (locals (x i64))\n    (set x 0)\n    (while true\n      (block\n        (set x (+ x 3))\n        (if (> x 10) (block (break)))))\n    (return x)"),
     ["run: f() == 12"])
case("control", "early_return", "hand",
     fn("early_return", 0, "((x i64[1,row]) (v i64)) (i64)",
        "    (locals (i i64))\n    (for (i) (range 0 (- (len x) 1))\n      (block\n"
        "        (if (== (index x i) v) (block (return i)))))\n    (return -1)"),
     ["run: f([4, 8, 15, 16], 15) == 2", "run: f([4, 8], 5) == -1"])
case("control", "gpu_block", "hand",
     fn("gpu_block", 0, "((x f64[1,row])) (f64[1,row])",
        "    (locals (i i64))\n    (gpu\n      (parfor (i) (range 0 (- (len x) 1))\n        (block (set (index x i) (* 2.0 (index x i))))))\n    (return x)"),
     ["run: f([1.0, 2.5, -3.0]) == [2.0, 5.0, -6.0]"], "a (gpu ...) section means the same as a block")
case("control", "nested_blocks", "hand",
     fn("nested_blocks", 0, "() (i64)",
        "    (locals (a i64))\n    (block\n      (set a 1)\n      (block (set a (+ a 1)))\n      (set a (* a 10)))\n    (return a)"),
     ["run: f() == 20"])
case("control", "line_numbers", "hand",
     fn("line_numbers", 1, "((a f64[1,row]) (i i64)) (f64)",
        "    (locals (x f64))\n    (set x (index a i) :line 3)\n    (return x :line 4)"),
     ["run: f([1.5, 2.5], 2) == 2.5", "error: f([1.5, 2.5], 3) => line 3"],
     "statements carry host source lines; an error names the line of its statement")
case("control", "for_i32_var", "hand",
     fn("for_i32_var", 0, "() (i32)",
        "    (locals (i i32) (s i32))\n    (set s 0:i32)\n    (for (i) (range 1:i32 4:i32)\n      (block (set s (+ s i))))\n    (return s)"),
     ["run: f() == 10"], "an i32 loop variable over an i32-bounded range")

# =================================================================== calls
def mod(name, base, funcs):
    return "(module %s :index-base %d\n%s)\n" % (name, base, "\n".join(funcs))


case("calls", "helper", "hand",
     mod("helper", 0, ["  (function sq ((x f64)) (f64)\n    (locals)\n    (return (* x x)))",
                       "  (function f ((x f64)) (f64)\n    (locals)\n    (return (+ (call sq x) (call sq (+ x 1.0)))))"]),
     ["run: f(2.0) == 13.0", "run: f(-0.5) == 0.5"])
case("calls", "factorial_recursive", "hand",
     mod("factorial_recursive", 0, ["  (function f ((n i64)) (i64)\n    (locals)\n    (if (<= n 1) (block (return 1)))\n    (return (* n (call f (- n 1)))))"]),
     ["run: f(10) == 3628800", "run: f(0) == 1", "run: f(20) == 2432902008176640000"])
case("calls", "fib_recursive", "hand",
     mod("fib_recursive", 0, ["  (function f ((n i64)) (i64)\n    (locals)\n    (if (< n 2) (block (return n)))\n    (return (+ (call f (- n 1)) (call f (- n 2)))))"]),
     ["run: f(15) == 610", "run: f(1) == 1"])
case("calls", "mutual_recursion", "hand",
     mod("mutual_recursion", 0, [
         "  (function even ((n i64)) (bool)\n    (locals)\n    (if (== n 0) (block (return true)))\n    (return (call odd (- n 1))))",
         "  (function odd ((n i64)) (bool)\n    (locals)\n    (if (== n 0) (block (return false)))\n    (return (call even (- n 1))))",
         "  (function f ((n i64)) (bool bool)\n    (locals)\n    (return (call even n) (call odd n)))"]),
     ["run: f(10) == true, false", "run: f(7) == false, true"])
case("calls", "multi_result_mset", "numpy",
     mod("multi_result_mset", 0, [
         "  (function divmod ((a i64) (b i64)) (i64 i64)\n    (locals)\n    (return (idiv a b) (mod a b)))",
         "  (function f ((a i64) (b i64)) (i64)\n    (locals (q i64) (r i64))\n    (mset (q r) (call divmod a b))\n    (return (+ (* q 100) r)))"]),
     ["run: f(%d, %d) == %d" % (a, b, (a // b) * 100 + a % b) for a, b in [(17, 5), (-17, 5)]])
case("calls", "void_mutates_argument", "hand",
     mod("void_mutates_argument", 0, [
         "  (function bump ((x f64[1,row]) (v f64)) ()\n    (locals)\n    (set (index x :) (+ x v)))",
         "  (function f ((x f64[1,row])) (f64[1,row])\n    (locals)\n    (expr (call bump x 1.5))\n    (expr (call bump x 1.0))\n    (return x))"]),
     ["run: f([0.0, 1.0, -2.5]) == [2.5, 3.5, 0.0]"], "arrays are passed by reference: the callee's writes are seen by the caller")
case("calls", "args_left_to_right", "hand",
     mod("args_left_to_right", 0, [
         "  (function next ((c i64[1,row])) (i64)\n    (locals)\n    (set (index c 0) (+ (index c 0) 1))\n    (return (index c 0)))",
         "  (function pair ((a i64) (b i64)) (i64)\n    (locals)\n    (return (+ (* 10 a) b)))",
         "  (function f ((c i64[1,row])) (i64)\n    (locals)\n    (return (call pair (call next c) (call next c))))"]),
     ["run: f([0]) == 12", "run: f([4]) == 56"], "arguments are evaluated left to right")
case("calls", "result_aliases_argument", "hand",
     mod("result_aliases_argument", 0, [
         "  (function ident ((x f64[1,row])) (f64[1,row])\n    (locals)\n    (return x))",
         "  (function f ((x f64[1,row])) (f64[1,row])\n    (locals (y f64[1,row]))\n    (set y (call ident x))\n    (set (index y 0) 42.0)\n    (return x))"]),
     ["run: f([1.0, 2.0]) == [42.0, 2.0]"], "an array result returned by reference is the same array")
case("calls", "strided_parameter", "numpy",
     mod("strided_parameter", 0, [
         "  (function total ((v f64[1,strided])) (f64)\n    (locals)\n    (return (sum v)))",
         "  (function f ((x f64[1,row])) (f64 f64)\n    (locals)\n    (return (call total (index x (range 0 _ 2) :view)) (call total x)))"]),
     ["run: f([1.0, 2.0, 3.0, 4.0, 5.0]) == %s, %s" % (f64(np.sum([1.0, 3.0, 5.0])), f64(15.0))],
     "a strided parameter takes a view or a contiguous array")
case("calls", "assign_shares_array", "hand",
     fn("assign_shares_array", 0, "((a f64[1,row])) (f64[1,row])",
        "    (locals (b f64[1,row]))\n    (set b a)\n    (set (index b 1) -1.0)\n    (return a)"),
     ["run: f([1.0, 2.0, 3.0]) == [1.0, -1.0, 3.0]"], "(set b a) makes b the same array as a")
case("calls", "copy_breaks_sharing", "hand",
     fn("copy_breaks_sharing", 0, "((a f64[1,row])) (f64[1,row] f64[1,row])",
        "    (locals (b f64[1,row]))\n    (set b (copy a))\n    (set (index b 1) -1.0)\n    (return a b)"),
     ["run: f([1.0, 2.0, 3.0]) == [1.0, 2.0, 3.0], [1.0, -1.0, 3.0]"])


# =================================================================== library
def unary_lib(name, fname, xs, approx, note=None, npf=None):
    npf = npf or getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}.get(fname, fname))
    op = "~=" if approx else "=="
    case("library", name, "numpy",
         fn(name, 0, "((x f64)) (f64)", "    (locals)\n    (return (%s x))" % fname),
         ["run: f(%s) %s %s" % (f64(x), op if np.isfinite(npf(np.float64(x))) else "==", f64(npf(np.float64(x)))) for x in xs], note)


unary_lib("sqrt", "sqrt", [2.0, 0.25, 0.0, -1.0, float("inf")], False, "IEEE sqrt is correctly rounded; sqrt(-1) is NaN, not an error")
unary_lib("exp_log", "exp", [1.0, -2.5, 0.0, 700.0], True)
unary_lib("log", "log", [2.0, 1.0, 0.0, -1.0], True, "log(0) = -inf, log(-1) = NaN (IEEE, no error)")
unary_lib("log10", "log10", [1000.0, 2.0, 1e-5], True)
unary_lib("sin", "sin", [0.5, -1.0, 3.0], True)
unary_lib("cos", "cos", [0.5, 0.0, 2.0], True)
unary_lib("tan", "tan", [0.5, -1.2], True)
unary_lib("asin", "asin", [0.5, 1.0, 2.0], True, "asin(2) is NaN")
unary_lib("acos", "acos", [0.5, -1.0], True)
unary_lib("atan", "atan", [1.0, -20.0], True)
unary_lib("sinh", "sinh", [1.0, -0.5], True)
unary_lib("cosh", "cosh", [1.0, -0.5], True)
unary_lib("tanh", "tanh", [1.0, -30.0], True)
rv = [0.5, 1.5, 2.5, -0.5, -2.5, 3.7, -3.7]
case("library", "round_half_even", "r",
     fn("round_half_even", 0, "((x f64)) (f64)", "    (locals)\n    (return (round x))"),
     ["run: f(%s) == %s" % (f64(x), f64(float(rscript("round(%r)" % x)[0]))) for x in rv],
     "round is half to even: R's round(2.5) is 2 (also NumPy's rint)")
case("library", "floor_ceil_trunc", "numpy",
     fn("floor_ceil_trunc", 0, "((x f64)) (f64 f64 f64)", "    (locals)\n    (return (floor x) (ceil x) (trunc x))"),
     ["run: f(%s) == %s, %s, %s" % (f64(x), f64(np.floor(x)), f64(np.ceil(x)), f64(np.trunc(x))) for x in (2.5, -2.5, -0.5, 7.0)])
case("library", "round_int_identity", "hand",
     fn("round_int_identity", 0, "((n i64)) (i64 i64 i64)", "    (locals)\n    (return (round n) (floor n) (abs n))"),
     ["run: f(-7) == -7, -7, 7", "run: f(%d) == %d, %d, %d" % (imin, imin, imin, imin)],
     "on integers round/floor are the identity; abs of the minimum wraps to itself")
case("library", "abs_float", "numpy",
     fn("abs_float", 0, "((x f64)) (f64)", "    (locals)\n    (return (abs x))"),
     ["run: f(%s) == %s" % (f64(x), f64(np.abs(x))) for x in (-2.5, 0.0, float("-inf"))])
case("library", "isnan_isinf", "numpy",
     fn("isnan_isinf", 0, "((x f64) (n i64)) (bool bool bool bool)",
        "    (locals)\n    (return (isnan x) (isinf x) (isnan n) (isinf n))"),
     ["run: f(%s, 3) == %s, %s, false, false" % (f64(x), V(np.isnan(x), "bool"), V(np.isinf(x), "bool"))
      for x in (1.0, float("nan"), float("-inf"))], "false for integers")
case("library", "min_max_nan", "numpy",
     fn("min_max_nan", 0, "((a f64) (b f64)) (f64 f64)", "    (locals)\n    (return (min a b) (max a b))"),
     ["run: f(%s, %s) == %s, %s" % (f64(a), f64(b), f64(np.minimum(a, b)), f64(np.maximum(a, b)))
      for a, b in [(1.0, 2.0), (1.0, float("nan")), (float("nan"), -1.0), (-0.5, -3.0)]],
     "NaN propagates (NumPy minimum / maximum)")
case("library", "min_max_int", "hand",
     fn("min_max_int", 0, "((a i32) (b i32)) (i32 i32)", "    (locals)\n    (return (min a b) (max a b))"),
     ["run: f(3, -4) == -4, 3"])
case("library", "rem_sign_of_dividend", "numpy",
     fn("rem_sign_of_dividend", 0, "((a i64) (b i64) (x f64) (y f64)) (i64 f64)", "    (locals)\n    (return (rem a b) (rem x y))"),
     ["run: f(%d, %d, %s, %s) == %d, %s" % (a, b, f64(x), f64(y), np.fmod(a, b), f64(np.fmod(x, y)))
      for (a, b), (x, y) in zip(mp, [(-7.5, 2.0), (5.5, -2.0), (7.5, 2.0), (-1.0, 3.0), (6.0, 3.0)])],
     "rem: C % and fmod (NumPy fmod)")
case("library", "pow_float", "numpy",
     fn("pow_float", 0, "((a f64) (b f64)) (f64)", "    (locals)\n    (return (pow a b))"),
     ["run: f(2.0, 10.0) == 1024.0", "run: f(2.0, -1.0) == 0.5", "run: f(-8.0, %s) == %s" % (f64(1 / 3), f64(np.power(-8.0, 1 / 3))),
      "run: f(2.0, 0.5) ~= %s" % f64(np.power(2.0, 0.5))], "(-8)^(1/3) is NaN for real pow")
case("library", "pow_int", "numpy",
     fn("pow_int", 0, "((a i64) (b i64)) (i64)", "    (locals)\n    (return (pow a b))"),
     ["run: f(%d, %d) == %d" % (a, b, np.power(np.int64(a), np.int64(b))) for a, b in [(3, 4), (-2, 5), (2, 63), (7, 0), (3, 41)]],
     "integer pow wraps on overflow (NumPy int64 power)")
case("library", "atan2_quadrants", "numpy",
     fn("atan2_quadrants", 0, "((y f64) (x f64)) (f64)", "    (locals)\n    (return (atan2 y x))"),
     ["run: f(%s, %s) ~= %s" % (f64(y), f64(x), f64(np.arctan2(y, x))) for y, x in [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0), (0.0, -1.0)]])
case("library", "len_ndims_dim", "hand",
     fn("len_ndims_dim", 0, "((a f64[3,col])) (i64 i64 i64 i64 i64)",
        "    (locals)\n    (return (len a) (ndims a) (dim a 0) (dim a 1) (dim a 2))"),
     ["run: f(%s) == 24, 3, 2, 3, 4" % V(np.arange(24.0).reshape(2, 3, 4), "f64")])
T2 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
case("library", "transpose_row", "numpy",
     fn("transpose_row", 0, "((a f64[2,row])) (f64[2,row])", "    (locals)\n    (return (transpose a))"),
     ["run: f(%s) == %s" % (V(T2, "f64"), V(T2.T, "f64"))])
case("library", "transpose_col", "octave",
     fn("transpose_col", 1, "((a f64[2,col])) (f64[2,col] f64)", "    (locals (t f64[2,col]))\n    (set t (transpose a))\n    (return t (index t 2 :flat))"),
     ["run: f(%s) == %s, 2.0" % (V(T2, "f64"), V(T2.T, "f64"))],
     "Octave: t = A.' is [1 4; 2 5; 3 6]; column-major t(2) = 2")
case("library", "transpose_vector", "hand",
     fn("transpose_vector", 0, "((a f64[1,row])) (f64[1,row])", "    (locals)\n    (return (transpose a))"),
     ["run: f([1.0, 2.0, 3.0]) == [1.0, 2.0, 3.0]"], "a 1-D transpose is a copy of the vector")
xs = np.array([0.25, 4.0, 9.0])
case("library", "elementwise_arrays", "numpy",
     fn("elementwise_arrays", 0, "((x f64[1,row]) (y f64[1,row])) (f64[1,row] f64[1,row] bool[1,row])",
        "    (locals)\n    (return (sqrt x) (max x y) (isnan (log (- x 1.0))))"),
     ["run: f(%s, [1.0, 1.0, 10.0]) == %s, %s, %s" % (V(xs, "f64"), V(np.sqrt(xs), "f64"),
                                                     V(np.maximum(xs, [1.0, 1.0, 10.0]), "f64"), V(np.isnan(np.log(xs - 1.0)), "bool"))])
case("library", "pow_broadcast", "numpy",
     fn("pow_broadcast", 0, "((x f64[1,row])) (f64[1,row])", "    (locals)\n    (return (pow 2.0 x))"),
     ["run: f([0.0, 1.0, 10.0, -2.0]) == %s" % V(np.power(2.0, [0.0, 1.0, 10.0, -2.0]), "f64")])
case("library", "copy_same_type", "hand",
     fn("copy_same_type", 0, "((a i32[2,col])) (i32[2,col])", "    (locals (b i32[2,col]))\n    (set b (copy a))\n    (set (index a 0 0) 0:i32)\n    (return b)"),
     ["run: f([[5, 6], [7, 8]]) == [[5, 6], [7, 8]]"])

# =================================================================== matmul
Ma = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
Mb = np.array([[0.5, -1.0], [2.0, 0.0], [-3.0, 1.5]])
case("matmul", "mm_row", "numpy",
     fn("mm_row", 0, "((a f64[2,row]) (b f64[2,row])) (f64[2,row])", "    (locals)\n    (return (matmul a b))"),
     ["run: f(%s, %s) == %s" % (V(Ma, "f64"), V(Mb, "f64"), V(Ma @ Mb, "f64"))])
case("matmul", "mm_col", "octave",
     fn("mm_col", 1, "((a f64[2,col]) (b f64[2,col])) (f64[2,col])", "    (locals)\n    (return (matmul a b))"),
     ["run: f(%s, %s) == %s" % (V(Mb, "f64"), V(Ma, "f64"), V(Mb @ Ma, "f64"))], "Octave: B * A")
case("matmul", "mm_mixed_layout", "numpy",
     fn("mm_mixed_layout", 0, "((a f64[2,col]) (b f64[2,row])) (f64[2,col])", "    (locals)\n    (return (matmul a b))"),
     ["run: f(%s, %s) == %s" % (V(Ma, "f64"), V(Mb, "f64"), V(Ma @ Mb, "f64"))])
vv = np.array([1.0, -2.0, 0.5])
case("matmul", "mm_matrix_vector", "numpy",
     fn("mm_matrix_vector", 0, "((a f64[2,row]) (v f64[1,row])) (f64[1,row])", "    (locals)\n    (return (matmul a v))"),
     ["run: f(%s, %s) == %s" % (V(Ma, "f64"), V(vv, "f64"), V(Ma @ vv, "f64"))])
case("matmul", "mm_vector_matrix", "numpy",
     fn("mm_vector_matrix", 0, "((v f64[1,row]) (b f64[2,row])) (f64[1,row])", "    (locals)\n    (return (matmul v b))"),
     ["run: f(%s, %s) == %s" % (V(vv, "f64"), V(Mb, "f64"), V(vv @ Mb, "f64"))])
case("matmul", "mm_dot", "numpy",
     fn("mm_dot", 0, "((u f64[1,row]) (v f64[1,row])) (f64)", "    (locals)\n    (return (matmul u v))"),
     ["run: f(%s, [4.0, 1.0, 2.0]) == %s" % (V(vv, "f64"), f64(vv @ np.array([4.0, 1.0, 2.0])))])
Ia = np.array([[1, 2], [3, 4]], dtype=np.int64)
case("matmul", "mm_int", "numpy",
     fn("mm_int", 0, "((a i64[2,row])) (i64[2,row])", "    (locals)\n    (return (matmul a (matmul a a)))"),
     ["run: f(%s) == %s" % (V(Ia, "i64"), V(Ia @ Ia @ Ia, "i64"))])
Bs = np.arange(20.0).reshape(4, 5)
case("matmul", "mm_strided_views", "numpy",
     fn("mm_strided_views", 0, "((a f64[2,row])) (f64[2,row])",
        "    (locals (p f64[2,strided]) (q f64[2,strided]))\n    (set p (index a (range 0 2 2) (range 0 4 2) :view))\n"
        "    (set q (index a (range 3 1 -1) (range 1 _ 3) :view))\n    (return (matmul p q))"),
     ["run: f(%s) == %s" % (V(Bs, "f64"), V(Bs[0:3:2, 0:5:2] @ Bs[3:0:-1, 1::3], "f64"))],
     "matmul of two strided views (one with a negative row stride); the result is row-major")
case("matmul", "mm_identity_f32", "numpy",
     fn("mm_identity_f32", 0, "((a f32[2,row])) (f32[2,row])",
        "    (locals (e f32[2,row]) (i i64))\n    (set e (zeros f32[2,row] 2 2))\n    (for (i) (range 0 1) (block (set (index e i i) 1.0:f32)))\n    (return (matmul e a))"),
     ["run: f([[0.1, 0.2], [0.3, 0.4]]) == %s" % V(np.array([[0.1, 0.2], [0.3, 0.4]], dtype=np.float32), "f32")])
P52 = 2.0 ** 52
case("matmul", "mm_exact_in_any_order", "hand",
     fn("mm_exact_in_any_order", 0, "((u f64[1,row]) (v f64[1,row])) (f64)", "    (locals)\n    (return (matmul u v))"),
     ["run: f([%s, 1.0, %s], [1.0, 1.0, 1.0]) == 1.0" % (f64(P52), f64(-P52)),
      "run: f([0.5, -2.0, 0.25], [4.0, 0.75, -8.0]) == -1.5",
      'run: f([1.0, "nan", 2.0], [1.0, 1.0, 0.0]) == "nan"',
      'run: f(["inf", 1.0], [1.0, 0.0]) == "inf"',
      'run: f(["inf", "inf"], [1.0, -1.0]) == "nan"'],
     "float matmul adds in an unspecified order, maybe with fused multiply-adds (as BLAS\n"
     "does): these sums are exact in every order, so every backend gives the same value:\n"
     "2^52 + 1 - 2^52 = 1 whichever pair is added first; NaN and inf propagate in any order")
# Large enough for a blocked kernel's edge cases (odd extents, several panels); small
# integers, so every order of additions gives NumPy's exact result.
rng = np.random.default_rng(7)
La = rng.integers(-8, 9, size=(19, 23)).astype(np.float64)
Lb = rng.integers(-8, 9, size=(23, 17)).astype(np.float64)
case("matmul", "mm_blocked_exact", "numpy",
     fn("mm_blocked_exact", 0, "((a f64[2,row]) (b f64[2,col])) (f64[2,row] f64[1,col] f64[1,col])",
        "    (locals)\n    (return (matmul a b) (matmul (index a 2) b) (matmul b (index b 0)))"),
     ["run: f(%s, %s) == %s, %s, %s" % (V(La, "f64"), V(Lb, "f64"), V(La @ Lb, "f64"),
                                       V(La[2] @ Lb, "f64"), V(Lb @ Lb[0], "f64"))],
     "operands of 19 x 23 and 23 x 17 (odd extents, several kernel panels) holding small\n"
     "integers: every order of additions gives the exact product")
Wa = np.array([[2 ** 30, 3], [1, -(2 ** 31)]], dtype=np.int64)
case("matmul", "mm_i32_wraps", "numpy",
     fn("mm_i32_wraps", 0, "((a i32[2,col])) (i32[2,col] i32)",
        "    (locals)\n    (return (matmul a a) (matmul (index a 0) (index a 1)))"),
     ["run: f(%s) == %s, %s" % (V(Wa, "i32"), V(((Wa @ Wa + 2**31) % 2**32 - 2**31), "i32"),
                               V((Wa[0] @ Wa[1] + 2**31) % 2**32 - 2**31, "i32"))],
     "i32 products and sums wrap around modulo 2^32 (computed exactly, then wrapped)")
case("matmul", "mm_empty_inner", "hand",
     fn("mm_empty_inner", 0, "((n i64)) (f64[2,row] i64)",
        "    (locals)\n    (return (matmul (ones f64[2,row] 2 n) (ones f64[2,row] n 3))"
        " (matmul (ones i64[1,row] n) (ones i64[1,row] n)))"),
     ["run: f(0) == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 0", "run: f(2) == [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], 2"],
     "an empty inner extent gives zeros (the empty sum)")

# =================================================================== reduce
R2 = np.array([[3.0, -1.0, 4.0], [1.5, 5.0, -9.0]])
case("reduce", "reduce_all", "numpy",
     fn("reduce_all", 0, "((a f64[2,row])) (f64 f64 f64 f64)", "    (locals)\n    (return (sum a) (prod a) (amin a) (amax a))"),
     ["run: f(%s) == %s, %s, %s, %s" % (V(R2, "f64"), f64(R2.sum()), f64(R2.prod()), f64(R2.min()), f64(R2.max()))])
case("reduce", "sum_axis_row", "numpy",
     fn("sum_axis_row", 0, "((a f64[2,row])) (f64[1,row] f64[1,row])", "    (locals)\n    (return (sum a :axis 0) (sum a :axis 1))"),
     ["run: f(%s) == %s, %s" % (V(R2, "f64"), V(R2.sum(axis=0), "f64"), V(R2.sum(axis=1), "f64"))])
case("reduce", "minmax_axis_col", "octave",
     fn("minmax_axis_col", 1, "((a f64[2,col])) (f64[1,col] f64[1,col])", "    (locals)\n    (return (amin a :axis 0) (amax a :axis 1))"),
     ["run: f(%s) == %s, %s" % (V(R2, "f64"), V(R2.min(axis=0), "f64"), V(R2.max(axis=1), "f64"))],
     "Octave: min(A, [], 1) and max(A, [], 2)")
case("reduce", "prod_axis_3d", "numpy",
     fn("prod_axis_3d", 0, "((a i64[3,row])) (i64[2,row])", "    (locals)\n    (return (prod a :axis 1))"),
     ["run: f(%s) == %s" % (V(np.arange(1, 13).reshape(2, 3, 2), "i64"), V(np.arange(1, 13).reshape(2, 3, 2).prod(axis=1), "i64"))])
case("reduce", "sum_1d_axis0_scalar", "hand",
     fn("sum_1d_axis0_scalar", 0, "((a i32[1,row])) (i32)", "    (locals)\n    (return (sum a :axis 0))"),
     ["run: f([1, 2, 3, 4]) == 10"], "a 1-D array reduced along its axis is a scalar")
big = np.array([[1e16, 1.0], [-1e16, 1.0]])
case("reduce", "sum_storage_order_row", "hand",
     fn("sum_storage_order_row", 0, "((a f64[2,row])) (f64)", "    (locals)\n    (return (sum a))"),
     ["run: f(%s) == 1.0" % V(big, "f64")],
     "row-major order: ((1e16 + 1) + -1e16) + 1 = 1 (1e16 + 1 rounds to 1e16)")
case("reduce", "sum_storage_order_col", "hand",
     fn("sum_storage_order_col", 0, "((a f64[2,col])) (f64)", "    (locals)\n    (return (sum a))"),
     ["run: f(%s) == 2.0" % V(big, "f64")],
     "column-major order: ((1e16 + -1e16) + 1) + 1 = 2")
case("reduce", "sum_empty", "hand",
     fn("sum_empty", 0, "((a f64[1,row])) (f64 f64)", "    (locals)\n    (return (sum a) (prod a))"),
     ["run: f([]) == 0.0, 1.0"], "an empty sum is 0, an empty product 1")
case("reduce", "sum_i32_wraps", "numpy",
     fn("sum_i32_wraps", 0, "((a i32[1,row])) (i32)", "    (locals)\n    (return (sum a))"),
     ["run: f([2147483647, 1, 5]) == %d" % np.array([2147483647, 1, 5], dtype=np.int32).sum(dtype=np.int32)])
case("reduce", "reduce_strided_view", "numpy",
     fn("reduce_strided_view", 0, "((a f64[2,row])) (f64[1,row] f64)",
        "    (locals (v f64[2,strided]))\n    (set v (index a (range _ _ -2) (range 1 _ 2) :view))\n    (return (sum v :axis 0) (amax v))"),
     ["run: f(%s) == %s, %s" % (V(Bs, "f64"), V(Bs[::-2, 1::2].sum(axis=0), "f64"), f64(Bs[::-2, 1::2].max()))])
def par_int_reductions(n):
    i = np.arange(n, dtype=np.int64)
    a = (i * 7919) % 10007 - 5000
    b = 2 * (i % 13) + 1
    ii, jj = np.meshgrid(i, np.arange(3, dtype=np.int64), indexing="ij")
    c = ((ii * 31 + jj * 17) % 1000 - 500).astype(np.int32)
    d = (2 * ((ii + jj) % 7) + 1).astype(np.int32)
    vals = [a.sum(dtype=np.int64), np.prod(b, dtype=np.int64), a.min(), a.max(), a[::-3].sum(dtype=np.int64),
            c.sum(dtype=np.int32), np.prod(d, dtype=np.int32), c.min(), c.max()]
    return "run: f(%d) == %s" % (n, ", ".join(str(int(v)) for v in vals))


case("reduce", "par_int_reductions", "numpy",
     fn("par_int_reductions", 0, "((n i64)) (i64 i64 i64 i64 i64 i32 i32 i32 i32)",
        "    (locals (a i64[1,row]) (b i64[1,row]) (c i32[2,col]) (d i32[2,col]) (i i64) (j i64))\n"
        "    (set a (zeros i64[1,row] n))\n    (set b (zeros i64[1,row] n))\n"
        "    (set c (zeros i32[2,col] n 3))\n    (set d (zeros i32[2,col] n 3))\n"
        "    (for (i) (range 0 (- n 1)) (block\n"
        "      (set (index a i) (- (mod (* i 7919) 10007) 5000))\n"
        "      (set (index b i) (+ (* 2 (mod i 13)) 1))\n"
        "      (for (j) (range 0 2) (block\n"
        "        (set (index c i j) (cast i32 (- (mod (+ (* i 31) (* j 17)) 1000) 500)))\n"
        "        (set (index d i j) (cast i32 (+ (* 2 (mod (+ i j) 7)) 1)))))))\n"
        "    (return (sum a) (prod b) (amin a) (amax a) (sum (index a (range _ _ -3) :view))\n"
        "      (sum c) (prod d) (amin c) (amax c))"),
     [par_int_reductions(n) for n in (100000, 1000, 1)],
     "integer reductions large enough for cpu-par to split them over threads (n = 100000; 300000 "
     "elements for the 2-D i32 ones), wrapping sums and products (odd factors: never 0) included, and small ones that stay serial")
case("reduce", "sum_bool_count", "hand",
     fn("sum_bool_count", 0, "((x f64[1,row])) (i64)", "    (locals)\n    (return (sum (cast i64[1,row] (> x 0.0))))"),
     ["run: f([1.0, -1.0, 2.0, 0.0, 3.0]) == 3"], "count positives: cast the bool mask to integers and sum")
case("reduce", "sum_complex", "numpy",
     fn("sum_complex", 0, "((z c128[1,row])) (c128)", "    (locals)\n    (return (sum z))"),
     ['run: f([{"re": 1.0, "im": 2.0}, {"re": -0.5, "im": 0.25}]) == %s' % V(np.complex128(1 + 2j) + (-0.5 + 0.25j), "c128")])

# =================================================================== alloc
case("alloc", "zeros_row", "numpy",
     fn("zeros_row", 0, "((m i64) (n i64)) (f64[2,row])", "    (locals)\n    (return (zeros f64[2,row] m n))"),
     ["run: f(2, 3) == %s" % V(np.zeros((2, 3)), "f64"), 'run: f(0, 3) == {"dtype": "f64", "shape": [0, 3], "data": []}'])
case("alloc", "ones_col", "octave",
     fn("ones_col", 1, "() (i32[2,col])", "    (locals)\n    (return (ones i32[2,col] 3 2))"),
     ["run: f() == [[1, 1], [1, 1], [1, 1]]"], "Octave: ones(3, 2, 'int32')")
case("alloc", "fill_value", "hand",
     fn("fill_value", 0, "((v f64)) (f64[1,row] bool[2,row])", "    (locals)\n    (return (fill f64[1,row] v 3) (fill bool[2,row] true 1 2))"),
     ["run: f(-2.5) == [-2.5, -2.5, -2.5], [[true, true]]"])
case("alloc", "empty_dims", "hand",
     fn("empty_dims", 0, "() (i64 i64)", "    (locals (a f64[2,col]))\n    (set a (empty f64[2,col] 4 5))\n    (return (dim a 0) (dim a 1))"),
     ["run: f() == 4, 5"], "empty's contents are unspecified; only its shape is tested")
case("alloc", "alloc_statement", "hand",
     fn("alloc_statement", 0, "((n i64)) (i64[1,row])",
        "    (locals (a i64[1,row]) (i i64))\n    (alloc a n)\n    (for (i) (range 0 (- n 1)) (block (set (index a i) (* i i))))\n    (return a)"),
     ["run: f(5) == [0, 1, 4, 9, 16]", "run: f(0) == []"])
case("alloc", "refcount_hooks", "hand",
     fn("refcount_hooks", 0, "((a f64[1,row])) (f64[1,row])", "    (locals (b f64[1,row]))\n    (set b a)\n    (refincr b)\n    (refdecr b)\n    (return b)"),
     ["run: f([1.0, 2.0]) == [1.0, 2.0]"], "refincr / refdecr change nothing observable")
case("alloc", "free_then_reuse", "hand",
     fn("free_then_reuse", 0, "() (f64)", "    (locals (a f64[1,row]))\n    (set a (ones f64[1,row] 3))\n    (free a)\n    (set a (zeros f64[1,row] 2))\n    (return (sum a))"),
     ["run: f() == 0.0"], "a freed variable can be assigned again")
case("alloc", "zeros_3d_i64_dims", "hand",
     fn("zeros_3d_i64_dims", 0, "((n i32)) (c128[3,row])", "    (locals)\n    (return (zeros c128[3,row] 1 n 1))"),
     ['run: f(2) == [[[{"re": 0.0, "im": 0.0}], [{"re": 0.0, "im": 0.0}]]]'], "dims may be i32 or i64 scalars")

# =================================================================== map
def mmod(name, base, helper, main):
    """Two functions; `main` is written with the module's closing paren."""
    return "(module %s :index-base %d\n%s\n%s\n" % (name, base, helper, main)


sqh = "  (function poly ((x f64)) (f64)\n    (locals)\n    (return (+ (* x x) 1.0)))"
case("map", "map_unary", "numpy",
     mmod("map_unary", 0, sqh, "  (function f ((a f64[1,row])) (f64[1,row])\n    (locals)\n    (return (map poly a))))"),
     ["run: f([0.0, 1.5, -2.0]) == %s" % V(np.array([0.0, 1.5, -2.0]) ** 2 + 1.0, "f64")])
axpy = "  (function axpy ((a f64) (x f64) (y f64)) (f64)\n    (locals)\n    (return (+ (* a x) y)))"
case("map", "map_broadcast_scalar", "numpy",
     mmod("map_broadcast_scalar", 0, axpy, "  (function f ((x f64[1,row]) (y f64[1,row])) (f64[1,row])\n    (locals)\n    (return (map axpy 2.0 x y))))"),
     ["run: f([1.0, 2.0, 3.0], [0.5, 0.5, -1.0]) == %s" % V(2.0 * np.array([1.0, 2.0, 3.0]) + np.array([0.5, 0.5, -1.0]), "f64")])
case("map", "map_col_2d", "octave",
     mmod("map_col_2d", 1, sqh, "  (function f ((a f64[2,col])) (f64[2,col] f64)\n    (locals (b f64[2,col]))\n    (set b (map poly a))\n    (return b (index b 2 :flat))))"),
     ["run: f([[1.0, 2.0], [3.0, 4.0]]) == [[2.0, 5.0], [10.0, 17.0]], 10.0"],
     "the result keeps the column-major layout: its second linear element is b(2,1) = 3^2 + 1")
case("map", "map_to_bool", "hand",
     mmod("map_to_bool", 0, "  (function pos ((n i64)) (bool)\n    (locals)\n    (return (> n 0)))",
          "  (function f ((a i64[1,row])) (bool[1,row])\n    (locals)\n    (return (map pos a))))"),
     ["run: f([3, -1, 0]) == [true, false, false]"])
case("map", "map_strided", "numpy",
     mmod("map_strided", 0, sqh, "  (function f ((a f64[2,row])) (f64[2,row])\n    (locals)\n    (return (map poly (index a : (range _ _ -1) :view)))))"),
     ["run: f([[1.0, 2.0], [3.0, 0.0]]) == %s" % V(np.array([[1.0, 2.0], [3.0, 0.0]])[:, ::-1] ** 2 + 1, "f64")],
     "map over a strided view: the result is row-major")

case("map", "map_complex", "numpy",
     mmod("map_complex", 0, "  (function sqmod ((z c128) (k f64)) (f64)\n    (locals)\n    (return (* k (abs (* z z)))))",
          "  (function f ((a c128[2,col])) (f64[2,col])\n    (locals)\n    (return (map sqmod a 0.5))))"),
     ["run: f(%s) == %s" % (V(np.array([[3 + 4j, 1j], [-2 + 0j, 0.5 - 0.5j]]), "c128"),
                            V(0.5 * np.abs(np.array([[3 + 4j, 1j], [-2 + 0j, 0.5 - 0.5j]]) ** 2), "f64"))],
     "map over a complex column-major array with a scalar broadcast; |z^2| = |z|^2 exactly for these values")
case("map", "map_tuple_item_function", "hand",
     mmod("map_tuple_item_function", 1, "  (function clamp ((x i64) (lo i64) (hi i64)) (i64)\n    (locals)\n    (return (max lo (min x hi))))",
          "  (function f ((a i64[1,row]) (b (tuple i64 i64))) (i64[1,row])\n    (locals)\n    (return (map clamp a (tget b 0) (tget b 1)))))"),
     ["run: f([-5, 0, 3, 9], [-1, 4]) == [-1, 0, 3, 4]"],
     "scalar arguments of map taken from a tuple parameter: each element clamped to [-1, 4]")

# =================================================================== parfor
case("parfor", "parfor_squares", "hand",
     fn("parfor_squares", 0, "((n i64)) (i64[1,row])",
        "    (locals (a i64[1,row]) (i i64))\n    (set a (zeros i64[1,row] n))\n    (parfor (i) (range 0 (- n 1))\n      (block (set (index a i) (* i i))))\n    (return a)"),
     ["run: f(6) == [0, 1, 4, 9, 16, 25]"])
case("parfor", "parfor_2d_domain", "hand",
     fn("parfor_2d_domain", 1, "((m i64) (n i64)) (i64[2,col])",
        "    (locals (a i64[2,col]) (i i64) (j i64))\n    (set a (zeros i64[2,col] m n))\n"
        "    (parfor (i j) (domain (range 1 m) (range 1 n))\n      (block (set (index a i j) (+ (* 10 i) j))))\n    (return a)"),
     ["run: f(2, 3) == [[11, 12, 13], [21, 22, 23]]"])
case("parfor", "atomic_add_histogram", "numpy",
     fn("atomic_add_histogram", 0, "((x i64[1,row])) (i64[1,row])",
        "    (locals (h i64[1,row]) (i i64) (old i64))\n    (set h (zeros i64[1,row] 4))\n    (parfor (i) (range 0 (- (len x) 1))\n"
        "      (block (set old (atomic-add h (index x i) :value 1))))\n    (return h)"),
     ["run: f([0, 3, 3, 1, 3, 0, 2]) == %s" % V(np.bincount([0, 3, 3, 1, 3, 0, 2], minlength=4), "i64")])
case("parfor", "atomic_add_float_sum", "hand",
     fn("atomic_add_float_sum", 0, "((n i64)) (f64)",
        "    (locals (acc f64[1,row]) (i i64) (old f64))\n    (set acc (zeros f64[1,row] 1))\n    (parfor (i) (range 1 n)\n"
        "      (block (set old (atomic-add acc 0 :value (cast f64 i)))))\n    (return (index acc 0))"),
     ["run: f(100) == 5050.0"], "small integers: every order of additions gives exactly 5050")
case("parfor", "atomic_cas_once", "hand",
     fn("atomic_cas_once", 0, "((n i64)) (i64 i64)",
        "    (locals (flag i32[1,row]) (wins i64[1,row]) (i i64) (old i32) (o i64))\n    (set flag (zeros i32[1,row] 1))\n"
        "    (set wins (zeros i64[1,row] 1))\n    (parfor (i) (range 1 n)\n      (block\n"
        "        (set old (atomic-cas flag 0 :expected 0:i32 :new 1:i32))\n"
        "        (if (== old 0:i32) (block (set o (atomic-add wins 0 :value 1))))))\n    (return (index wins 0) (cast i64 (index flag 0)))"),
     ["run: f(50) == 1, 1"], "exactly one iteration swaps 0 -> 1")
case("parfor", "atomic_cas_bool", "hand",
     fn("atomic_cas_bool", 0, "() (bool bool)",
        "    (locals (b bool[1,row]) (i i64) (old bool))\n    (set b (fill bool[1,row] false 2))\n    (parfor (i) (range 0 0)\n"
        "      (block (set old (atomic-cas b 1 :expected false :new true))))\n    (return (index b 0) (index b 1))"),
     ["run: f() == false, true"])
case("parfor", "parfor_continue", "hand",
     fn("parfor_continue", 0, "((n i64)) (i64[1,row])",
        "    (locals (a i64[1,row]) (i i64))\n    (set a (zeros i64[1,row] n))\n    (parfor (i) (range 0 (- n 1))\n"
        "      (block\n        (if (== (mod i 2) 1) (block (continue)))\n        (set (index a i) 1)))\n    (return a)"),
     ["run: f(5) == [1, 0, 1, 0, 1]"], "continue ends the iteration")
case("parfor", "parfor_nested", "hand",
     fn("parfor_nested", 0, "() (i64[2,row])",
        "    (locals (a i64[2,row]) (i i64) (j i64))\n    (set a (zeros i64[2,row] 3 3))\n    (parfor (i) (range 0 2)\n      (block\n"
        "        (parfor (j) (range 0 2)\n          (block (set (index a i j) (- i j))))))\n    (return a)"),
     ["run: f() == [[0, -1, -2], [1, 0, -1], [2, 1, 0]]"], "a parfor inside a parfor")
case("parfor", "parfor_private_scalars", "hand",
     fn("parfor_private_scalars", 0, "((x f64[1,row])) (f64[1,row])",
        "    (locals (y f64[1,row]) (i i64) (t f64))\n    (set y (zeros f64[1,row] (len x)))\n    (parfor (i) (range 0 (- (len x) 1))\n"
        "      (block\n        (set t (* (index x i) 2.0))\n        (set (index y i) (+ t 1.0))))\n    (return y)"),
     ["run: f([1.0, 2.0, 3.0, 4.0]) == [3.0, 5.0, 7.0, 9.0]"], "scalars assigned in the body are private to each iteration")
case("parfor", "parfor_error", "hand",
     fn("parfor_error", 0, "((x f64[1,row])) (f64[1,row])",
        "    (locals (i i64))\n    (parfor (i) (range 0 (len x))\n      (block (set (index x i) 0.0)))\n    (return x)"),
     ["error: f([1.0, 2.0, 3.0]) => index out of bounds"], "the last iteration writes one past the end; the error reaches the caller")

# =================================================================== tuple
case("tuple", "tuple_tget", "hand",
     fn("tuple_tget", 0, "((a i64) (b f64)) (f64 i64)",
        "    (locals (t (tuple i64 f64)))\n    (set t (tuple a b))\n    (return (tget t 1) (tget t 0))"),
     ["run: f(3, 2.5) == 2.5, 3"])
case("tuple", "tuple_mset", "hand",
     fn("tuple_mset", 0, "((a i64) (b i64)) (i64 i64)",
        "    (locals (x i64) (y i64))\n    (mset (x y) (tuple b a))\n    (return x y)"),
     ["run: f(1, 2) == 2, 1"], "a swap through a tuple: the value is built before the targets are assigned")
case("tuple", "three_results", "numpy",
     mod("three_results", 0, [
         "  (function stats ((x f64[1,row])) (f64 f64 f64)\n    (locals)\n    (return (amin x) (amax x) (/ (sum x) (cast f64 (len x)))))",
         "  (function f ((x f64[1,row])) (f64 f64 f64)\n    (locals (lo f64) (hi f64) (mean f64))\n    (mset (lo hi mean) (call stats x))\n    (return mean lo hi))"]),
     ["run: f([2.0, -1.0, 8.0, 3.0]) == %s, -1.0, 8.0" % f64(np.mean([2.0, -1.0, 8.0, 3.0]))])
case("tuple", "tuple_with_array", "hand",
     fn("tuple_with_array", 0, "((x f64[1,row])) (f64[1,row] i64)",
        "    (locals (t (tuple i64 f64[1,row])))\n    (set t (tuple (len x) x))\n    (set (index x 0) 9.0)\n    (return (tget t 1) (tget t 0))"),
     ["run: f([1.0, 2.0]) == [9.0, 2.0], 2"], "a tuple holds the array by reference")
case("tuple", "tget_of_call", "hand",
     mod("tget_of_call", 0, [
         "  (function two ((x i64)) (i64 i64)\n    (locals)\n    (return (+ x 1) (- x 1)))",
         "  (function f ((x i64)) (i64)\n    (locals)\n    (return (* (tget (call two x) 0) (tget (call two x) 1))))"]),
     ["run: f(5) == 24"], "a multi-result call is a tuple: (5+1)(5-1)")
case("tuple", "tuple_result", "hand",
     fn("tuple_result", 0, "((a i64)) ((tuple i64 bool))", "    (locals)\n    (return (tuple a (> a 0)))"),
     ["run: f(4) == [4, true]"], "a tuple-typed result is written as vr run prints it: a JSON list")

case("tuple", "tuple_nested_result", "hand",
     fn("tuple_nested_result", 0, "((b bool) (z c64) (n i32)) ((tuple bool (tuple c64 i32) f64))",
        "    (locals (t (tuple c64 i32)))\n    (set t (tuple (* z (c64 0.0 1.0)) (+ n 1:i32)))\n    (return (tuple (not b) t -0.5))"),
     ['run: f(true, {"re": 1.5, "im": -2.0}, 7) == [false, [{"re": 2.0, "im": 1.5}, 8], -0.5]'],
     "items of several sizes nested in a tuple result; (1.5 - 2i) i = 2 + 1.5i")
case("tuple", "tuple_range_params", "hand",
     mod("tuple_range_params", 0, [
         "  (function g ((t (tuple bool i64 f64[1,row])) (r range)) ((tuple i64 bool) domain[2])\n"
         "    (locals (s i64) (i i64) (u f64[1,row]))\n    (set s (tget t 1))\n    (for (i) r (block (set s (+ (* s 10) i))))\n"
         "    (set u (tget t 2))\n    (set (index u 0) 42.0)\n    (return (tuple s (not (tget t 0))) (domain r (range 3 1 -1))))",
         "  (function f ((x f64[1,row]) (n i64)) (i64 bool domain[2] f64[1,row])\n    (locals (a (tuple i64 bool)) (d domain[2]) (k i64) (i i64) (j i64))\n"
         "    (mset (a d) (call g (tuple true 7 x) (range 0 n 2)))\n    (set k 0)\n    (for (i j) d (block (set k (+ k 1))))\n"
         "    (return (tget a 0) (tget a 1) d x))"]),
     ['run: f([1.0, 2.0], 4) == 7024, false, [{"start": 0, "stop": 4, "step": 2}, {"start": 3, "stop": 1, "step": -1}], [42.0, 2.0]'],
     "a tuple (holding an array by reference) and a range passed to a function, a tuple and a domain returned: "
     "s = 7, then 70, 702, 7024 over r = 0, 2, 4; the write through the tuple's array reaches x")
case("tuple", "domain_value_loop", "hand",
     mod("domain_value_loop", 1, [
         "  (function dom ((m i64)) (domain[2])\n    (locals)\n    (return (domain (range 1 m) (range m 1 -1))))",
         "  (function f ((m i64)) (i64 domain[2])\n    (locals (i i64) (j i64) (c i64))\n    (set c 0)\n"
         "    (for (i j) (call dom m) (block (set c (+ (* c 10) j))))\n    (return c (call dom m)))"]),
     ['run: f(2) == 2121, [{"start": 1, "stop": 2, "step": 1}, {"start": 2, "stop": 1, "step": -1}]'],
     "a loop over a domain a call returns: j counts 2, 1 for each of i = 1, 2")

# =================================================================== complex
za, zb = np.complex128(1.5 - 2j), np.complex128(-0.5 + 4j)
CJ = lambda z: V(z, "c128")
case("complex", "c128_arith", "numpy",
     fn("c128_arith", 0, "((a c128) (b c128)) (c128 c128 c128)", "    (locals)\n    (return (+ a b) (- a b) (* a b))"),
     ["run: f(%s, %s) == %s, %s, %s" % (CJ(za), CJ(zb), CJ(za + zb), CJ(za - zb), CJ(za * zb))])
case("complex", "c128_div", "numpy",
     fn("c128_div", 0, "((a c128) (b c128)) (c128)", "    (locals)\n    (return (/ a b))"),
     ["run: f(%s, %s) ~= %s" % (CJ(za), CJ(zb), CJ(za / zb)), 'run: f({"re": 4.0, "im": 2.0}, {"re": 1.0, "im": 1.0}) == {"re": 3.0, "im": -1.0}'],
     "(4+2i)/(1+i) = ((4+2) + (2-4)i)/2 = 3 - i")
case("complex", "abs_modulus", "numpy",
     fn("abs_modulus", 0, "((z c128)) (f64)", "    (locals)\n    (return (abs z))"),
     ['run: f({"re": 3.0, "im": -4.0}) == 5.0', "run: f(%s) == %s" % (CJ(za), f64(np.hypot(1.5, -2.0)))])
case("complex", "parts_conj", "numpy",
     fn("parts_conj", 0, "((z c128)) (f64 f64 c128)", "    (locals)\n    (return (real z) (imag z) (conj z))"),
     ["run: f(%s) == 1.5, -2.0, %s" % (CJ(za), CJ(np.conj(za)))])
case("complex", "complex_from_parts", "hand",
     fn("complex_from_parts", 0, "((re f32) (im f32)) (c64)", "    (locals)\n    (return (complex re im))"),
     ['run: f(0.5, -1.0) == {"re": 0.5, "im": -1.0}'])
case("complex", "real_types_identity", "hand",
     fn("real_types_identity", 0, "((x f64)) (f64 f64 f64)", "    (locals)\n    (return (real x) (imag x) (conj x))"),
     ["run: f(-2.5) == -2.5, 0.0, -2.5"], "on real types real is the identity, imag zero, conj the identity")
case("complex", "c64_arith", "numpy",
     fn("c64_arith", 0, "((a c64)) (c64)", "    (locals)\n    (return (* a (c64 0.1 1.0)))"),
     ["run: f({\"re\": 2.0, \"im\": 0.5}) == %s" % V(np.complex64(2 + 0.5j) * np.complex64(complex(np.float32(0.1), 1.0)), "c64")])
case("complex", "complex_sqrt_exp", "numpy",
     fn("complex_sqrt_exp", 0, "((z c128)) (c128 c128)", "    (locals)\n    (return (sqrt z) (exp z))"),
     ["run: f(%s) ~= %s, %s" % (CJ(z), CJ(np.sqrt(np.complex128(z))), CJ(np.exp(np.complex128(z)))) for z in (-4 + 0j, 1 + 1j)])
# csqrt's special values, R's answers; the second and third results take a NaN made at
# run time (x86's 0/0 has the sign bit set) and one folded at compile time (LLVM's has
# not): the sign of a NaN is not a value, so all three agree (found by opt_differential,
# seed 3006: sqrt(NaN + 0i) was NaN + 0i compiled and 0 + NaN i interpreted).
csq = [(complex(float("nan"), 0.0), "complex(real=NaN, imaginary=0)"),
       (complex(float("inf"), float("nan")), "complex(real=Inf, imaginary=NaN)"),
       (complex(float("-inf"), float("nan")), "complex(real=-Inf, imaginary=NaN)"),
       (complex(float("nan"), float("inf")), "complex(real=NaN, imaginary=Inf)"),
       (complex(1.0, float("nan")), "complex(real=1, imaginary=NaN)"),
       (complex(float("inf"), 1.0), "complex(real=Inf, imaginary=1)"),
       (complex(float("-inf"), -1.0), "complex(real=-Inf, imaginary=-1)")]
def r_sqrt(expr):
    re, im = rscript("c(Re(sqrt(%s)), Im(sqrt(%s)))" % (expr, expr))
    return complex(float(re), float(im))
nan_sqrt = r_sqrt("as.complex(0 %/% 0)")
case("complex", "complex_sqrt_special", "r",
     fn("complex_sqrt_special", 0, "((z c128) (a f64)) (c128 c128 c128)",
        "    (locals)\n    (return (sqrt z) (sqrt (cast c128 (idiv a a))) (sqrt (cast c128 (idiv 0.0 0.0))))"),
     ["run: f(%s, 0.0) == %s, %s, %s" % (V(z, "c128"), V(r_sqrt(e), "c128"), V(nan_sqrt, "c128"), V(nan_sqrt, "c128"))
      for z, e in csq])
case("complex", "complex_equality", "hand",
     fn("complex_equality", 0, "((a c128) (b c128)) (bool bool)", "    (locals)\n    (return (== a b) (!= a b))"),
     ['run: f({"re": 1.0, "im": 2.0}, {"re": 1.0, "im": 2.0}) == true, false', 'run: f({"re": 1.0, "im": 2.0}, {"re": 1.0, "im": -2.0}) == false, true'])
zarr = np.array([[1 + 1j, 2 - 1j], [0.5j, -3 + 0j]])
case("complex", "complex_matmul", "numpy",
     fn("complex_matmul", 0, "((a c128[2,row])) (c128[2,row])", "    (locals)\n    (return (matmul a a))"),
     ["run: f(%s) == %s" % (V(zarr, "c128"), V(zarr @ zarr, "c128"))])
zM = np.array([[1 + 2j, -0.5 + 0.25j, 3 + 0j], [0 - 1j, 2 - 2j, -1.5 + 4j]])
zN = np.array([[0.5 - 1j, 2 + 0j], [1 + 1j, -1 + 0.5j], [0.25j, 4 - 2j]])
zv = np.array([1 - 1j, 0.5 + 2j, -2 + 0j])
case("complex", "complex_matmul_c64_col", "numpy",
     fn("complex_matmul_c64_col", 0, "((a c64[2,col]) (b c64[2,col])) (c64[2,col])", "    (locals)\n    (return (matmul a b))"),
     ["run: f(%s, %s) == %s" % (V(zM, "c64"), V(zN, "c64"), V((zM @ zN).astype(np.complex64), "c64"))],
     "single-precision complex, column-major operands and result (binary fractions: every product is exact)")
case("complex", "complex_matmul_vectors", "numpy",
     fn("complex_matmul_vectors", 0, "((a c128[2,row]) (v c128[1,row]) (w c128[1,row])) (c128[1,row] c128[1,row] c128)",
        "    (locals)\n    (return (matmul a v) (matmul w a) (matmul v v))"),
     ["run: f(%s, %s, %s) == %s, %s, %s" % (V(zM, "c128"), V(zv, "c128"), V(zv[:2], "c128"), V(zM @ zv, "c128"),
                                            V(zv[:2] @ zM, "c128"), V(zv @ zv, "c128"))],
     "matrix-vector, vector-matrix and the dot product (no conjugation, as NumPy's @)")
zS = np.array([[(r - 2) + 0.5j * c for c in range(5)] for r in range(4)])
case("complex", "complex_matmul_strided", "numpy",
     fn("complex_matmul_strided", 0, "((a c128[2,row])) (c128[2,row])",
        "    (locals (p c128[2,strided]) (q c128[2,strided]))\n    (set p (index a (range 0 2 2) (range 0 4 2) :view))\n"
        "    (set q (index a (range 3 1 -1) (range 1 _ 3) :view))\n    (return (matmul p q))"),
     ["run: f(%s) == %s" % (V(zS, "c128"), V(zS[0:3:2, 0:5:2] @ zS[3:0:-1, 1::3], "c128"))],
     "views with no unit stride (one with a negative row stride): the general strided kernel, not BLAS")
case("complex", "complex_array_abs", "numpy",
     fn("complex_array_abs", 0, "((a c128[1,col])) (f64[1,col])", "    (locals)\n    (return (abs a))"),
     ['run: f([{"re": 3.0, "im": 4.0}, {"re": 0.0, "im": -2.0}]) == [5.0, 2.0]'])

zA = np.array([[1 + 2j, -0.5 + 0.25j, 3 + 0j], [0 - 1j, 2 - 2j, -1.5 + 4j]])
zB = np.array([[0.5 - 1j, 2 + 0j, 1 + 1j], [-1 + 0.5j, 0.25j, 4 - 2j]])
case("complex", "complex_array_ops", "numpy",
     fn("complex_array_ops", 1, "((a c128[2,col]) (b c128[2,row])) (c128[2,col] c128[2,col] c128[2,col] c128[2,row])",
        "    (locals)\n    (return (* a b) (- (conj a) b) (neg a) (+ (c128 1.0 -1.0) b))"),
     ["run: f(%s, %s) == %s, %s, %s, %s" % (V(zA, "c128"), V(zB, "c128"), V(zA * zB, "c128"), V(np.conj(zA) - zB, "c128"),
                                             V(-zA, "c128"), V((1 - 1j) + zB, "c128"))],
     "element-wise complex arithmetic over arrays of two layouts (binary fractions: every product is exact)")
case("complex", "complex_array_div_math", "numpy",
     fn("complex_array_div_math", 0, "((a c128[2,row])) (c128[2,row] c128[2,row] c128[2,row] c128[2,row])",
        "    (locals)\n    (return (/ a (c128 0.5 -1.0)) (sqrt a) (log a) (pow a (c128 0.5 2.0)))"),
     ["run: f(%s) ~= %s, %s, %s, %s" % (V(zA, "c128"), V(zA / (0.5 - 1j), "c128"), V(np.sqrt(zA), "c128"),
                                         V(np.log(zA), "c128"), V(zA ** (0.5 + 2j), "c128"))])
case("complex", "complex_array_reduce", "numpy",
     fn("complex_array_reduce", 0, "((a c128[2,col])) (c128 c128 c128[1,col] c128[1,col])",
        "    (locals)\n    (return (sum a) (prod a) (sum a :axis 0) (prod a :axis 1))"),
     ["run: f(%s) == %s, %s, %s, %s" % (V(zA, "c128"), V(zA.sum(), "c128"), V(np.prod(zA.T.ravel()), "c128"),
                                         V(zA.sum(axis=0), "c128"), V(zA.prod(axis=1), "c128"))],
     "the product runs in storage order (column-major); binary fractions keep every step exact")
case("complex", "complex_array_write", "numpy",
     fn("complex_array_write", 0, "((z c128[1,row])) (c128[1,row])",
        "    (locals (i i64))\n    (for (i) (range 0 (- (len z) 1))\n      (block (set (index z i) (* (index z i) (c128 0.0 1.0)))))\n    (return z)"),
     ["run: f(%s) == %s" % (V(np.array([1 + 2j, -3 + 0.5j]), "c128"), V(np.array([1 + 2j, -3 + 0.5j]) * 1j, "c128"))],
     "elements written in place (the argument's interleaved re, im storage)")
case("complex", "complex_array_casts", "numpy",
     fn("complex_array_casts", 0, "((x f64[1,row]) (y c64[1,row])) (c128[1,row] c128[1,row] c64[1,row] f32[1,row] bool[1,row])",
        "    (locals)\n    (return (cast c128[1,row] x) (cast c128[1,row] y) (* y y) (imag y) (== (cast c128[1,row] x) (cast c128[1,row] y)))"),
     ["run: f([2.5, -1.0], %s) == %s, %s, %s, %s, [false, true]" % (
         V(np.array([0.5 + 0.25j, -1 + 0j], dtype=np.complex64), "c64"), V(np.array([2.5, -1.0]).astype(np.complex128), "c128"),
         V(np.array([0.5 + 0.25j, -1 + 0j], dtype=np.complex64).astype(np.complex128), "c128"),
         V(np.array([0.5 + 0.25j, -1 + 0j], dtype=np.complex64) ** 2, "c64"), V(np.array([0.25, 0.0], dtype=np.float32), "f32"))],
     "real to complex, c64 to c128, c64 arithmetic, parts and equality on arrays")

# =================================================================== layout
Lb = np.arange(1.0, 13.0).reshape(3, 4)
case("layout", "strided_param_takes_row", "numpy",
     mod("strided_param_takes_row", 0, [
         "  (function g ((v f64[2,strided])) (f64)\n    (locals)\n    (return (index v 1 2)))",
         "  (function f ((a f64[2,row]) (c f64[2,col])) (f64 f64 f64)\n    (locals)\n    (return (call g a) (call g c) (call g (index a (range _ _ -1) : :view))))"]),
     ["run: f(%s, %s) == %s, %s, %s" % (V(Lb, "f64"), V(Lb, "f64"), f64(Lb[1, 2]), f64(Lb[1, 2]), f64(Lb[::-1, :][1, 2]))],
     "a strided parameter accepts row-major, column-major and view arguments alike")
case("layout", "strided_var_reassigned", "hand",
     fn("strided_var_reassigned", 0, "((a f64[2,row]) (c f64[2,col])) (f64 f64)",
        "    (locals (v f64[2,strided]) (x f64))\n    (set v a)\n    (set x (index v 0 1))\n    (set v c)\n    (return x (index v 0 1))"),
     ["run: f([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]) == 2.0, 6.0"],
     "a strided variable may hold arrays of any layout, one after the other")
case("layout", "arith_keeps_first_layout", "octave",
     fn("arith_keeps_first_layout", 1, "((a f64[2,col]) (b f64[2,row])) (f64 f64)",
        "    (locals (s f64[2,col]) (t f64[2,row]))\n    (set s (+ a b))\n    (set t (+ b a))\n    (return (index s 2 :flat) (index t 2 :flat))"),
     ["run: f([[1.0, 2.0], [3.0, 4.0]], [[10.0, 20.0], [30.0, 40.0]]) == 33.0, 22.0"],
     "S = A + B is column-major: S(2) = S(2,1) = 3 + 30; T = B + A is row-major: linear 2 is T(1,2) = 20 + 2")
case("layout", "strided_becomes_row", "hand",
     fn("strided_becomes_row", 0, "((a f64[2,col])) (f64[2,row] f64)",
        "    (locals (v f64[2,strided]) (r f64[2,row]))\n    (set v (index a : (range 0 1) :view))\n    (set r (* v 2.0))\n    (return r (index r 1 :flat))"),
     ["run: f([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) == [[2.0, 4.0], [8.0, 10.0]], 4.0"],
     "arithmetic on a strided operand gives a row-major result: its linear element 1 is r[0,1]")
case("layout", "negative_stride_view_write", "numpy",
     fn("negative_stride_view_write", 0, "((a f64[1,row])) (f64[1,row])",
        "    (locals (v f64[1,strided]))\n    (set v (index a (range _ _ -1) :view))\n    (set (index v (range 0 1)) (fill f64[1,row] -1.0 2))\n    (return a)"),
     ["run: f([1.0, 2.0, 3.0, 4.0]) == [1.0, 2.0, -1.0, -1.0]"],
     "NumPy: v = a[::-1]; v[0:2] = -1 writes a[3] and a[2]")
vb = np.arange(24.0).reshape(4, 6)
vv2 = vb[1::2, ::-2]
case("layout", "view_of_view_flat", "numpy",
     fn("view_of_view_flat", 0, "((a f64[2,row])) (f64[1,row] f64)",
        "    (locals (v f64[2,strided]) (w f64[2,strided]))\n    (set v (index a (range 1 _ 2) : :view))\n    (set w (index v : (range _ _ -2) :view))\n"
        "    (return (index w (range 0 5) :flat) (index w 4 :flat))"),
     ["run: f(%s) == %s, %s" % (V(vb, "f64"), V(vv2.reshape(-1)[0:6], "f64"), f64(vv2.reshape(-1)[4]))],
     "a view of a view; :flat on a strided array enumerates the last index fastest")
case("layout", "col_flat_write_order", "octave",
     fn("col_flat_write_order", 1, "((n i64)) (i64[2,col])",
        "    (locals (a i64[2,col]) (k i64))\n    (set a (zeros i64[2,col] 2 3))\n    (for (k) (range 1 (* 2 3)) (block (set (index a k :flat) k)))\n    (return a)"),
     ["run: f(0) == [[1, 3, 5], [2, 4, 6]]"], "Octave: a(k) = k for k = 1:6 fills column by column")
case("layout", "row_flat_write_order", "numpy",
     fn("row_flat_write_order", 0, "((n i64)) (i64[2,row])",
        "    (locals (a i64[2,row]) (k i64))\n    (set a (zeros i64[2,row] 2 3))\n    (for (k) (range 0 5) (block (set (index a k :flat) k)))\n    (return a)"),
     ["run: f(0) == %s" % V(np.arange(6).reshape(2, 3), "i64")], "NumPy: a.flat[k] = k fills row by row")
case("layout", "cast_col_to_row", "numpy",
     fn("cast_col_to_row", 0, "((a i32[2,col])) (i32[2,row] i32)",
        "    (locals (b i32[2,row]))\n    (set b (cast i32[2,row] a))\n    (return b (index b 1 :flat))"),
     ["run: f([[1, 2], [3, 4]]) == [[1, 2], [3, 4]], 2"], "a layout-changing cast keeps the logical values")
case("layout", "view_3d_flat_col", "octave",
     fn("view_3d_flat_col", 1, "((a f64[3,col])) (f64 f64[1,col])",
        "    (locals)\n    (return (index a 2 5 :flat) (index a 1 (range 1 6) :flat))"),
     ["run: f(%s) == %s, %s" % (V(A3d := np.arange(1.0, 25.0).reshape(2, 3, 4, order="F"), "f64"),
                                f64(A3d.reshape(2, -1, order="F")[1, 4]), V(A3d.reshape(2, -1, order="F")[0, 0:6], "f64"))],
     "Octave A(2, 5) on a 2x3x4 array linearizes dims 2 and 3 column-major (A = reshape(1:24, 2, 3, 4))")

# =================================================================== run-time errors
def err(name, sig, body, runs, note, expected="hand", base=0):
    case("errors", name, expected, fn(name, base, sig, "    (locals%s)\n%s" % body), runs, note)


err("int_div_zero", "((a i64) (b i64)) (i64)", ("", "    (return (/ a b))"), ["error: f(1, 0) => division by zero", "run: f(1, 1) == 1"], "integer / by zero is an error")
err("idiv_zero", "((a i32) (b i32)) (i32)", ("", "    (return (idiv a b))"), ["error: f(-5, 0) => division by zero"], "idiv by zero")
err("mod_zero", "((a i64) (b i64)) (i64)", ("", "    (return (mod a b))"), ["error: f(5, 0) => division by zero"], "mod by zero")
err("rem_zero", "((a i64) (b i64)) (i64)", ("", "    (return (rem a b))"), ["error: f(5, 0) => division by zero"], "rem by zero")
err("array_div_zero", "((a i64[1,row]) (b i64[1,row])) (i64[1,row])", ("", "    (return (/ a b))"),
    ["error: f([4, 5], [2, 0]) => division by zero"], "element-wise integer division with a zero divisor")
err("float_div_zero_ok", "((a f64) (b f64)) (f64 f64)", ("", "    (return (/ a b) (mod a b))"),
    ['run: f(1.0, 0.0) == "inf", "nan"'], "float division and mod by zero are IEEE, not errors (mod: 1 - floor(inf)*0 = NaN)", "numpy")
err("shape_mismatch_add", "((a f64[1,row]) (b f64[1,row])) (f64[1,row])", ("", "    (return (+ a b))"),
    ["error: f([1.0, 2.0], [1.0, 2.0, 3.0]) => shape mismatch"], "NumPy: operands could not be broadcast together", "numpy")
err("shape_mismatch_2d", "((a f64[2,row]) (b f64[2,col])) (f64[2,row])", ("", "    (return (* a b))"),
    ["error: f([[1.0, 2.0]], [[1.0], [2.0]]) => shape mismatch"], "1 x 2 against 2 x 1: VRIR does not broadcast arrays against each other")
err("matmul_mismatch", "((a f64[2,row]) (b f64[2,row])) (f64[2,row])", ("", "    (return (matmul a b))"),
    ["error: f([[1.0, 2.0]], [[1.0, 2.0]]) => shape mismatch"], "inner extents 2 and 1 (Octave: operator *: nonconformant arguments)", "octave")
case("errors", "map_mismatch", "hand",
     mmod("map_mismatch", 0, axpy, "  (function f ((x f64[1,row]) (y f64[1,row])) (f64[1,row])\n    (locals)\n    (return (map axpy 1.0 x y))))"),
     ["error: f([1.0, 2.0], [1.0]) => shape mismatch"], "map over arrays of different shapes")
err("cast_nan", "((x f64)) (i64)", ("", "    (return (cast i64 x))"),
    ['error: f("nan") => invalid cast', 'error: f("inf") => invalid cast', "error: f(1e19) => invalid cast", "run: f(-1.5) == -1"],
    "NaN, infinities and out-of-range floats do not convert to integers")
err("cast_i32_range", "((x f64)) (i32)", ("", "    (return (cast i32 x))"),
    ["error: f(3e9) => invalid cast", "error: f(-2147483649.0) => invalid cast", "run: f(-2147483648.9) == -2147483648"],
    "after truncation -2147483648.9 is in range; -2147483649 and 3e9 are not")
err("cast_array_nan", "((x f64[1,row])) (i32[1,row])", ("", "    (return (cast i32[1,row] x))"),
    ['error: f([1.0, "nan"]) => invalid cast'], "element-wise cast fails on any element")
err("amin_empty", "((x f64[1,row])) (f64)", ("", "    (return (amin x))"), ["error: f([]) => runtime error"], "amin of an empty array is a run-time error")
err("amax_empty_axis", "((x f64[2,row])) (f64[1,row])", ("", "    (return (amax x :axis 1))"),
    ['error: f({"dtype": "f64", "shape": [2, 0], "data": []}) => runtime error'], "each output element reduces an empty row")
err("missing_return", "((x i64)) (i64)", ("", "    (if (> x 0) (block (return x)))"),
    ["run: f(3) == 3", "error: f(-3) => missing return"], "the body ends without return on this path")
err("unassigned_variable", "((x i64)) (i64)", (" (y i64)", "    (if (> x 0) (block (set y x)))\n    (return y)"),
    ["run: f(2) == 2", "error: f(-2) => runtime error"], "y holds no value when x <= 0")
err("use_after_free", "() (f64)", (" (a f64[1,row])", "    (set a (ones f64[1,row] 2))\n    (free a)\n    (return (sum a))"),
    ["error: f() => runtime error"], "reading a freed variable")
err("zero_step_loop", "((s i64)) (i64)", (" (i i64) (c i64)", "    (set c 0)\n    (for (i) (range 0 3 s) (block (set c (+ c 1))))\n    (return c)"),
    ["error: f(0) => runtime error", "run: f(2) == 2"], "a range with step 0 is an error")
err("zero_step_index", "((a f64[1,row]) (s i64)) (f64[1,row])", ("", "    (return (index a (range 0 1 s)))"),
    ["error: f([1.0, 2.0], 0) => runtime error"], "a range index with step 0")
err("negative_dim", "((n i64)) (f64[1,row])", ("", "    (return (zeros f64[1,row] n))"),
    ["error: f(-1) => runtime error", "run: f(0) == []"], "a negative dimension")
err("pow_negative_int_exponent", "((a i64) (b i64)) (i64)", ("", "    (return (pow a b))"),
    ["error: f(2, -1) => runtime error", "run: f(2, 0) == 1"], "integer pow with a negative exponent is an error")
err("oob_write", "((a f64[1,col])) (f64[1,col])", ("", "    (set (index a 4) 1.0)\n    (return a)"),
    ["error: f([1.0, 2.0, 3.0]) => index out of bounds", "run: f([1.0, 2.0, 3.0, 4.0]) == [1.0, 2.0, 3.0, 1.0]"],
    "writing one past the end (Octave would grow the array; VRIR does not)", base=1)
err("oob_names_variable", "((vec f64[1,row]) (i i64)) (f64)", ("", "    (return (index vec i))"),
    ["error: f([1.0, 2.0], 5) => vec", "error: f([1.0, 2.0], 5) => index out of bounds"], "the error names the array variable")
err("oob_flat", "((a f64[2,col])) (f64)", ("", "    (return (index a 7 :flat))"),
    ["error: f([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) => index out of bounds"], "Octave: index (7): out of bound 6", "octave", base=1)
err("oob_nocheck_still_checked", "((a f64[1,row])) (f64)", ("", "    (return (index a 2 :nocheck))"),
    ["only: interp", "error: f([1.0, 2.0]) => index out of bounds"], "the interpreter checks :nocheck accesses too (compiled code may not: undefined there)")
err("view_range_out", "((a f64[1,row])) (f64[1,strided])", ("", "    (return (index a (range 1 3) :view))"),
    ["error: f([1.0, 2.0, 3.0]) => index out of bounds"], "a view's range must lie within the extent (no clamping)")
err("empty_range_ok", "((a f64[1,row])) (f64[1,row])", ("", "    (return (index a (range 5 4)))"),
    ["run: f([1.0, 2.0, 3.0]) == []"], "an empty selection may name positions outside the extent")
err("int_wrap_no_error", "((a i32)) (i32)", ("", "    (return (* a a))"),
    ["run: f(-2147483648) == 0"], "overflow wraps; it is not an error: (-2^31)^2 = 2^62 = 0 mod 2^32")


# =================================================================== ranges, domains, i32 indices, attributes
case("slice", "range_value", "hand",
     fn("range_value", 0, "((a i64[1,row])) (i64 i64[1,row] range)",
        "    (locals (r range) (i i64) (s i64))\n    (set r (range 0 4 2))\n    (set s 0)\n    (for (i) r (block (set s (+ s i))))\n    (return s (index a r) r)"),
     ['run: f([10, 11, 12, 13, 14]) == 6, [10, 12, 14], {"start": 0, "stop": 4, "step": 2}'],
     "a range is a value: kept in a variable, looped over (0 + 2 + 4) and used as an index")
case("control", "domain_value", "hand",
     fn("domain_value", 1, "((m i64) (n i64)) (i64)",
        "    (locals (d domain[2]) (i i64) (j i64) (c i64))\n    (set d (domain (range 1 m) (range n 1 -1)))\n    (set c 0)\n"
        "    (for (i j) d (block (set c (+ (* c 10) j))))\n    (return c)"),
     ["run: f(2, 3) == 321321"], "a domain held in a variable; the second range counts down 3, 2, 1 for each i")
case("index", "i32_indices", "numpy",
     fn("i32_indices", 0, "((a f64[2,row]) (i i32) (g i32[1,row])) (f64 f64[1,row])",
        "    (locals)\n    (return (index a i (cast i32 1)) (index a 0 g))"),
     ["run: f([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 1, [2, 0, 2]) == 5.0, %s" % V(np.array([1.0, 2.0, 3.0])[[2, 0, 2]], "f64")],
     "i32 scalars and i32 gather arrays index like i64")
case("index", "i32_range_endpoints", "octave",
     fn("i32_range_endpoints", 1, "((a f64[1,col]) (lo i32) (hi i32)) (f64[1,col])",
        "    (locals)\n    (return (index a (range hi lo -1:i32)))"),
     ["run: f([1.0, 2.0, 3.0, 4.0], 2, 4) == [4.0, 3.0, 2.0]"], "Octave: a(4:-1:2)")
case("calls", "restrict_and_lines", "hand",
     "(module restrict_and_lines :index-base 0\n  (function f ((a f64[1,row] :restrict) (b f64[1,row] :restrict)) (f64[1,row])\n    :line 10\n"
     "    (locals (i i64))\n    (for (i) (range 0 (- (len a) 1))\n      (block (set (index a i) (+ (index a i) (index b i)) :line 12)) :line 11)\n    (return a :line 13)))\n",
     ["run: f([1.0, 2.0], [0.5, 0.25]) == [1.5, 2.25]", "error: f([1.0, 2.0], [0.5]) => line 12"],
     ":restrict parameters and :line on the function and on statements; the error names line 12")
case("library", "trunc_toward_zero_f32", "numpy",
     fn("trunc_toward_zero_f32", 0, "((x f32)) (f32 f32)", "    (locals)\n    (return (trunc x) (round x))"),
     ["run: f(%s) == %s, %s" % (V(np.float32(v), "f32"), V(np.trunc(np.float32(v)), "f32"), V(np.rint(np.float32(v)), "f32")) for v in (-2.5, 3.5, 0.49999997)])
case("alloc", "fill_matrix_and_write", "octave",
     fn("fill_matrix_and_write", 1, "((n i64)) (f64[2,col])",
        "    (locals (a f64[2,col]))\n    (set a (fill f64[2,col] 0.5 n n))\n    (set (index a 1 :) 1.0)\n    (set (index a : n) 2.0)\n    (return a)"),
     ["run: f(3) == [[1.0, 1.0, 2.0], [0.5, 0.5, 2.0], [0.5, 0.5, 2.0]]"], "Octave: a = 0.5*ones(3); a(1,:) = 1; a(:,3) = 2")

# =================================================================== other element types through indexing, more map
zc = np.array([[1 + 1j, 2 - 2j, 3 + 0j], [-1j, 0.5 + 0.5j, -2 + 1j]])
zc2 = zc.copy(); zv = zc2[:, ::2]; zv[1, :] = 9 - 9j
case("index", "complex_view_write", "numpy",
     fn("complex_view_write", 0, "((z c128[2,row])) (c128[2,row] c128)",
        "    (locals (v c128[2,strided]))\n    (set v (index z : (range 0 _ 2) :view))\n    (set (index v 1) (c128 9.0 -9.0))\n    (return z (index z 1 1))"),
     ["run: f(%s) == %s, %s" % (V(zc, "c128"), V(zc2, "c128"), V(zc2[1, 1], "c128"))],
     "NumPy: v = z[:, ::2]; v[1, :] = 9-9j (an implicit trailing range in the write)")
bm = np.array([[True, False, True], [False, False, True]])
case("index", "bool_array_slices", "octave",
     fn("bool_array_slices", 1, "((b bool[2,col])) (bool[1,col] bool[2,col])",
        "    (locals)\n    (set (index b 2 (range 1 2)) true)\n    (return (index b : 3) b)"),
     ["run: f(%s) == [true, true], [[true, false, true], [true, true, true]]" % V(bm, "bool")],
     "Octave: b(2, 1:2) = true; b(:, 3) is [1; 1]")
ic = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
case("slice", "i32_col_slice", "octave",
     fn("i32_col_slice", 1, "((a i32[2,col])) (i32[2,col])", "    (locals)\n    (return (index a (range 3 1 -2) (range 2 _)))"),
     ["run: f(%s) == %s" % (V(ic, "i32"), V(ic[2::-2, 1:], "i32"))], "Octave: a(3:-2:1, 2:end)")
case("index", "nan_elements", "hand",
     fn("nan_elements", 0, "((a f64[1,row])) (f64 bool)", "    (locals)\n    (return (index a 1) (isnan (index a 1)))"),
     ['run: f([1.0, "nan", "-inf"]) == "nan", true'])
case("map", "map_mixed_layouts", "numpy",
     mmod("map_mixed_layouts", 0, axpy, "  (function f ((x f64[2,col]) (y f64[2,row])) (f64[2,col] f64)\n    (locals (r f64[2,col]))\n    (set r (map axpy 10.0 x y))\n    (return r (index r 1 :flat))))"),
     ["run: f([[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.5], [0.5, 0.5]]) == [[10.5, 20.5], [30.5, 40.5]], 30.5"],
     "map's result takes the first array argument's layout (column-major: linear 1 is r[1,0])")
case("map", "map_calls_function", "hand",
     "(module map_calls_function :index-base 0\n  (function sq ((x i32)) (i32)\n    (locals)\n    (return (* x x)))\n"
     "  (function h ((x i32)) (f64)\n    (locals)\n    (return (/ (cast f64 (call sq x)) 4.0)))\n"
     "  (function f ((a i32[1,row])) (f64[1,row])\n    (locals)\n    (return (map h a))))\n",
     ["run: f([1, 2, -3]) == [0.25, 1.0, 2.25]"], "the mapped function calls another; i32 in, f64 out")
case("map", "map_3d_strided", "numpy",
     mmod("map_3d_strided", 0, sqh, "  (function f ((a f64[3,row])) (f64[3,row])\n    (locals)\n    (return (map poly (index a : (range 1 1) (range _ _ -1) :view)))))"),
     ["run: f(%s) == %s" % (V(np.arange(12.0).reshape(2, 3, 2), "f64"), V(np.arange(12.0).reshape(2, 3, 2)[:, 1:2, ::-1] ** 2 + 1, "f64"))])
case("parfor", "parfor_rows_col_b1", "octave",
     fn("parfor_rows_col_b1", 1, "((a f64[2,col])) (f64[1,col])",
        "    (locals (s f64[1,col]) (i i64) (j i64) (t f64))\n    (set s (zeros f64[1,col] (dim a 0)))\n    (parfor (i) (range 1 (dim a 0))\n      (block\n"
        "        (set t 0.0)\n        (for (j) (range 1 (dim a 1)) (block (set t (+ t (index a i j)))))\n        (set (index s i) t)))\n    (return s)"),
     ["run: f([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) == [6.0, 15.0]"], "Octave: sum(a, 2); each iteration writes its own element")

# =================================================================== verifier rejections
def verr(name, sig, locals_, body, message, note, base=0, extra_funcs=()):
    funcs = list(extra_funcs) + ["  (function f %s\n    (locals%s)\n%s)" % (sig, locals_, body)]
    case("verify", name, "hand", mod(name, base, funcs), ["verify-error: " + message], note)


verr("add_i64_f64", "((a i64) (b f64)) (f64)", "", "    (return (+ a b))", "one element type", "no implicit conversions: i64 + f64")
verr("add_bools", "((a bool) (b bool)) (bool)", "", "    (return (+ a b))", "+", "arithmetic needs numeric operands, not bool")
verr("assign_f64_to_i64", "((x f64)) (i64)", " (n i64)", "    (set n x)\n    (return n)", "cannot assign", "assigning f64 to an i64 variable")
verr("assign_wrong_layout", "((a f64[2,col])) (f64)", " (b f64[2,row])", "    (set b a)\n    (return 0.0)", "cannot assign", "only a strided variable takes an array of another layout")
verr("assign_wrong_rank", "((a f64[1,row])) (f64)", " (b f64[2,row])", "    (set b a)\n    (return 0.0)", "cannot assign", "ranks differ")
verr("undeclared_variable", "((x i64)) (i64)", "", "    (return (+ x y))", "undeclared variable y", "y is neither a parameter nor a local")
verr("undeclared_target", "((x i64)) (i64)", "", "    (set z x)\n    (return x)", "undeclared variable z", "assignment to an undeclared variable")
verr("break_outside_loop", "((x i64)) (i64)", "", "    (if (> x 0) (block (break)))\n    (return x)", "break outside a loop", "break in an if that is in no loop")
verr("continue_outside_loop", "() (i64)", "", "    (continue)\n    (return 0)", "continue outside a loop", "continue at the top level")
verr("break_in_parfor", "((a f64[1,row])) (f64[1,row])", " (i i64)",
     "    (parfor (i) (range 0 2) (block (break)))\n    (return a)", "break is not allowed in a parfor body", "parfor iterations cannot break")
verr("return_in_parfor", "((a f64[1,row])) (f64[1,row])", " (i i64)",
     "    (parfor (i) (range 0 2) (block (return a)))\n    (return a)", "return is not allowed in a parfor body", "parfor iterations cannot return")
verr("break_in_loop_in_parfor_ok_but_return", "((a f64[1,row])) (f64[1,row])", " (i i64) (j i64)",
     "    (parfor (i) (range 0 2)\n      (block\n        (for (j) (range 0 2) (block (break)))\n        (return a)))\n    (return a)",
     "return is not allowed in a parfor body", "break inside a for nested in a parfor is fine; the return is not")
verr("atomic_add_outside_parfor", "((h i64[1,row])) (i64)", " (o i64)",
     "    (set o (atomic-add h 0 :value 1))\n    (return o)", "only inside a parfor body", "atomics are allowed only inside a parfor body")
verr("atomic_cas_in_for", "((h i32[1,row])) (i32)", " (o i32) (i i64)",
     "    (for (i) (range 0 1) (block (set o (atomic-cas h i :expected 0:i32 :new 1:i32))))\n    (return o)",
     "only inside a parfor body", "a sequential for is not a parfor")
verr("atomic_cas_float", "((h f64[1,row])) (f64[1,row])", " (o f64) (i i64)",
     "    (parfor (i) (range 0 1) (block (set o (atomic-cas h i :expected 0.0 :new 1.0))))\n    (return h)",
     "atomic-cas", "atomic-cas needs an integer or bool array")
verr("wrong_return_type", "((x i64)) (f64)", "", "    (return x)", "cannot return", "returns i64 where f64 is declared")
verr("wrong_result_count", "((x i64)) (i64 i64)", "", "    (return x)", "returns 2 values, got 1", "two results declared, one returned")
verr("call_unknown_function", "((x i64)) (i64)", "", "    (return (call nosuch x))", "call of unknown function nosuch", "no such function in the module")
verr("call_argument_type", "((x i64)) (f64)", "", "    (return (call g x))", "cannot pass", "argument i64 for an f64 parameter",
     extra_funcs=["  (function g ((y f64)) (f64)\n    (locals)\n    (return y))"])
verr("call_argument_count", "((x f64)) (f64)", "", "    (return (call g x x))", "takes 1 argument", "one parameter, two arguments",
     extra_funcs=["  (function g ((y f64)) (f64)\n    (locals)\n    (return y))"])
verr("void_call_as_value", "((x f64[1,row])) (f64)", "", "    (return (call g x))", "void", "a void function's call is only an expr statement",
     extra_funcs=["  (function g ((y f64[1,row])) ()\n    (locals)\n    (set (index y 0) 1.0))"])
verr("if_condition_not_bool", "((x i64)) (i64)", "", "    (if x (block (return 1)))\n    (return 0)", "condition must be a bool scalar", "no truthiness: an i64 is not a condition")
verr("while_condition_array", "((m bool[1,row])) (i64)", "", "    (while m (block (break)))\n    (return 0)", "condition must be a bool scalar", "a bool array is not a condition")
verr("float_index", "((a f64[1,row]) (x f64)) (f64)", "", "    (return (index a x))", "must be an integer scalar, a range", "an f64 index")
verr("too_many_indices", "((a f64[1,row])) (f64)", "", "    (return (index a 0 0))", "indices for", "two indices into a 1-D array")
verr("view_with_gather", "((a f64[1,row]) (g i64[1,row])) (f64[1,strided])", "", "    (return (index a g :view))", ":view", ":view allows only scalar and range indices")
verr("view_with_flat", "((a f64[2,row])) (f64[1,strided])", "", "    (return (index a (range 0 2) :flat :view))", ":view", ":view with :flat when d < n")
verr("loop_var_float", "() (i64)", " (x f64)", "    (for (x) (range 0 2) (block))\n    (return 0)", "must be an integer local", "loop variables are integer locals")
verr("loop_var_parameter", "((i i64)) (i64)", "", "    (for (i) (range 0 2) (block))\n    (return 0)", "loop variables must be locals", "a parameter as loop variable")
verr("loop_vars_count", "() (i64)", " (i i64)", "    (for (i) (domain (range 0 1) (range 0 1)) (block))\n    (return 0)", "loop variable", "a 2-D domain needs two loop variables")
verr("dim_axis_out_of_range", "((a f64[2,row])) (i64)", "", "    (return (dim a 2))", "axis 2 is out of range", "dim axis must be < ndims")
verr("reduce_axis_out_of_range", "((a f64[1,row])) (f64)", "", "    (return (sum a :axis 1))", "axis 1 is out of range", "reduction axis must be < ndims")
verr("tget_out_of_range", "((a i64)) (i64)", "", "    (return (tget (tuple a a) 2))", "out of range", "tget index past the tuple")
verr("matmul_elem_types", "((a f64[2,row]) (b f32[2,row])) (f64[2,row])", "", "    (return (matmul a b))", "one element type", "matmul of f64 and f32")
verr("matmul_3d", "((a f64[3,row]) (b f64[2,row])) (f64[2,row])", "", "    (return (matmul a b))", "1-D or 2-D", "matmul needs 1-D or 2-D arrays")
verr("cast_complex_to_real", "((z c128)) (f64)", "", "    (return (cast f64 z))", "cannot cast", "complex to real needs `real`")
verr("cast_rank_change", "((a f64[2,row])) (f64[1,row])", "", "    (return (cast f64[1,row] a))", "cannot cast", "a cast keeps the rank")
verr("duplicate_variable", "((x i64)) (i64)", " (x i64)", "    (return x)", "duplicate variable name x", "a local with a parameter's name")
verr("duplicate_function", "((x i64)) (i64)", "", "    (return x)", "duplicate function name", "two functions named f",
     extra_funcs=["  (function f ((y i64)) (i64)\n    (locals)\n    (return y))"])
verr("map_unknown_function", "((a f64[1,row])) (f64[1,row])", "", "    (return (map nosuch a))", "map of unknown function nosuch", "map of a function that does not exist")
verr("map_no_array", "((x f64)) (f64[1,row])", "", "    (return (map g x))", "at least one array", "map needs an array argument",
     extra_funcs=["  (function g ((y f64)) (f64)\n    (locals)\n    (return y))"])
verr("map_array_function", "((a f64[1,row])) (f64[1,row])", "", "    (return (map g a))", "must take scalars", "map's function must be scalar to scalar",
     extra_funcs=["  (function g ((y f64[1,row])) (f64)\n    (locals)\n    (return 0.0))"])
verr("range_float_endpoint", "((a f64[1,row])) (f64[1,row])", "", "    (return (index a (range 0.0 1)))", "must be an integer scalar", "range endpoints are integers")
verr("open_range_in_loop", "() (i64)", " (i i64)", "    (for (i) (range 0 _) (block))\n    (return 0)", "allowed only as an index", "an absent stop outside indexing")
verr("store_wrong_element", "((a f64[1,row])) (f64[1,row])", "", "    (set (index a 0) 1)\n    (return a)", "cannot store", "storing an i64 into an f64 array")
verr("mset_count", "() (i64)", " (a i64) (b i64)", "    (mset (a b) (tuple 1 2 3))\n    (return a)", "needs a tuple of 2 values", "three values for two targets")
verr("compare_complex_order", "((a c128) (b c128)) (bool)", "", "    (return (< a b))", "<", "complex numbers are not ordered")
verr("sqrt_of_int", "((n i64)) (i64)", "", "    (return (sqrt n))", "sqrt", "sqrt is for floats and complex; integers need a cast")
verr("alloc_dims_count", "() (f64)", " (a f64[2,row])", "    (alloc a 3)\n    (return 0.0)", "alloc of a", "alloc needs one dim per dimension")
verr("zeros_float_dim", "() (f64[1,row])", "", "    (return (zeros f64[1,row] 2.0))", "zeros", "dims are integers")
verr("not_of_int", "((x i64)) (bool)", "", "    (return (not x))", "not", "not needs bool")
verr("index_scalar_var", "((x f64)) (f64)", "", "    (return (index x 0))", "needs an array", "indexing a scalar")
verr("bool_mask_2d", "((a f64[1,row]) (m bool[2,row])) (f64[1,row])", "", "    (return (index a m))", "must be an integer scalar, a range", "a mask is a 1-D bool array")

# =================================================================== parse errors
def perr(name, text, message, note):
    case("parse", name, "hand", text, ["parse-error: " + message], note)


perr("unbalanced_open", "(module m :index-base 0\n  (function f () (i64)\n    (locals)\n    (return 1))\n", "not closed", "a list is never closed")
perr("unbalanced_close", "(module m :index-base 0\n  (function f () (i64)\n    (locals)\n    (return 1))))\n", "unexpected `)`", "one `)` too many")
perr("bad_index_base", "(module m :index-base 2\n  (function f () (i64)\n    (locals)\n    (return 1)))\n", "must be 0 or 1", "index base 2")
perr("missing_index_base", "(module m\n  (function f () (i64)\n    (locals)\n    (return 1)))\n", ":index-base", "the index base is required")
perr("unknown_statement", "(module m :index-base 0\n  (function f () (i64)\n    (locals)\n    (loop 1)\n    (return 1)))\n", "unknown statement", "there is no `loop` statement")
perr("unknown_type", "(module m :index-base 0\n  (function f ((x f16)) (i64)\n    (locals)\n    (return 1)))\n", "unknown type", "there is no f16")
perr("bad_array_type", "(module m :index-base 0\n  (function f ((x f64[2,diag])) (i64)\n    (locals)\n    (return 1)))\n", "array type", "layouts are row, col and strided")
perr("unknown_index_flag", "(module m :index-base 0\n  (function f ((x f64[1,row])) (f64)\n    (locals)\n    (return (index x 0 :wrap))))\n", "unknown index flag", ":wrap is not a flag")
perr("duplicate_index_flag", "(module m :index-base 0\n  (function f ((x f64[1,row])) (f64)\n    (locals)\n    (return (index x 0 :neg :neg))))\n", "given twice", "a flag given twice")
perr("unknown_expression", "(module m :index-base 0\n  (function f ((x f64)) (f64)\n    (locals)\n    (return (frobnicate x))))\n", "unknown expression", "no such expression head")
perr("bad_literal", "(module m :index-base 0\n  (function f () (i32)\n    (locals)\n    (return 5:i8)))\n", "5:i8", "i8 is not a constant type")
perr("trailing_form", "(module m :index-base 0\n  (function f () (i64)\n    (locals)\n    (return 1)))\n(module n :index-base 0)\n", "after the module", "one module per file")
perr("empty_input", "; nothing but a comment\n", "no input", "no module at all")
perr("lib_wrong_arity", "(module m :index-base 0\n  (function f ((x f64)) (f64)\n    (locals)\n    (return (sqrt x x))))\n", "sqrt", "sqrt takes one argument (the parser checks library arity)")
perr("lib_arity_atan2", "(module m :index-base 0\n  (function f ((x f64)) (f64)\n    (locals)\n    (return (atan2 x))))\n", "atan2", "atan2 takes two arguments")
perr("set_missing_value", "(module m :index-base 0\n  (function f ((x f64)) (f64)\n    (locals)\n    (set x)\n    (return x)))\n", "missing", "set without a value")
perr("complex_int_parts", "(module m :index-base 0\n  (function f () (c128)\n    (locals)\n    (return (c128 1 2))))\n", "complex", "complex constants take float parts")

print("misc written")
