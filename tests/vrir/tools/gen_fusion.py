#!/usr/bin/env python3
"""Generate tests/vrir/opt/fusion_*.vrir and reuse_*.vrir: element-wise chains,
reductions of element-wise chains and reassignments the `fusion` and `reuse` passes
transform (docs/optimizer.md), on both sides of their run-time tests (equal shapes /
the target's size), with the errors the unfused code raises.  Expected values are
hand calculations stated beside each case, evaluated here with Python floats (IEEE
double, the same rounding as NumPy for + - * / and sqrt) and Python integers wrapped
to the element width.  Needs no NumPy.  Run: python3 tests/vrir/tools/gen_fusion.py
"""
import os

SUITE = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))


def write_case(name, note, runs, source):
    lines = ["; " + l for l in note.strip().splitlines()]
    lines.append("; expected: hand")
    lines += ["; " + r for r in runs]
    with open(os.path.join(SUITE, "opt", name + ".vrir"), "w") as f:
        f.write("\n".join(lines) + "\n" + source.strip("\n") + "\n")


def fl(x):
    s = repr(float(x))
    if "e" in s and "." not in s:
        m, e = s.split("e")
        s = m + ".0e" + e
    return s


def vec(xs, f=fl):
    return "[" + ", ".join(f(x) for x in xs) + "]"


def mat(rows, f=fl):
    return "[" + ", ".join(vec(r, f) for r in rows) + "]"


def wrap(x, bits):
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >= 1 << (bits - 1) else x


# ------------------------------------------------ a chain of three operations, 0-based
a, b = [1.0, 2.0, 3.0], [4.0, 9.0, 16.0]
d = [x * 2.0 + y ** 0.5 for x, y in zip(a, b)]
write_case("fusion_chain_b0",
    "d = a*2 + sqrt(b): simplify makes two temporaries, fusion one loop; a and b of\n"
    "different lengths run the statements as written and raise their shape error",
    ["run: f(%s, %s) == %s" % (vec(a), vec(b), vec(d)),
     "run: f([], []) == []",
     "error: f([1.0, 2.0], %s) => shape mismatch" % vec(b)],
    """(module fusion_chain_b0 :index-base 0
  (function f ((a f64[1,row]) (b f64[1,row])) (f64[1,row])
    (locals (d f64[1,row]))
    (set d (+ (* a 2.0) (sqrt b)))
    (return d)))""")

# ------------------------------------------------ 2-D, column-major, 1-based
a = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
b = [[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]
d = [[x * 2.0 - y / 4.0 for x, y in zip(r, s)] for r, s in zip(a, b)]
write_case("fusion_col_b1",
    "1-based, column-major 2 x 3: d = a*2 - b/4 element by element (first index 1);\n"
    "a 3 x 2 b is a shape error",
    ["run: f(%s, %s) == %s" % (mat(a), mat(b), mat(d)),
     "error: f(%s, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]) => shape mismatch" % mat(a)],
    """(module fusion_col_b1 :index-base 1
  (function f ((a f64[2,col]) (b f64[2,col])) (f64[2,col])
    (locals)
    (return (- (* a 2.0) (/ b 4.0)))))""")

# ------------------------------------------------ integer wrap-around inside a chain
a, b = [65536, 3, -46341], [7, -1, 0]
d = [wrap(x * x + y, 32) for x, y in zip(a, b)]
write_case("fusion_i32_wraps",
    "i32: a*a + b wraps as the unfused operators do: 65536^2 = 2^32 -> 0, + 7 = 7;\n"
    "(-46341)^2 = 2147488281 -> -2147479015",
    ["run: f(%s, %s) == %s" % (vec(a, str), vec(b, str), vec(d, str))],
    """(module fusion_i32_wraps :index-base 0
  (function f ((a i32[1,row]) (b i32[1,row])) (i32[1,row])
    (locals (d i32[1,row]))
    (set d (+ (* a a) b))
    (return d)))""")

# ------------------------------------------------ one operation that can fail
write_case("fusion_int_div_errors",
    "(a / b) + c on i64: one operation can fail, so the chain fuses in logical order;\n"
    "a zero divisor is a division by zero, also when c's length differs (the written\n"
    "statements divide before they add); equal-length operands without a zero add",
    ["run: f([7, -7, 9], [2, 2, 3], [1, 1, 1]) == [4, -2, 4]",
     "error: f([4, 6], [2, 0], [1, 1]) => division by zero",
     "error: f([4, 6], [2, 0], [1, 1, 1]) => division by zero",
     "error: f([4, 6], [2, 3], [1, 1, 1]) => shape mismatch"],
    """(module fusion_int_div_errors :index-base 0
  (function f ((a i64[1,row]) (b i64[1,row]) (c i64[1,row])) (i64[1,row])
    (locals (d i64[1,row]))
    (set d (+ (/ a b) c))
    (return d)))""")

# ------------------------------------------------ two operations that can fail: not fused
write_case("fusion_two_failing_ops",
    "(a idiv b) + (a mod c): two operations can fail, so nothing fuses; the unfused\n"
    "order raises the idiv's error (element 1) before the mod's (element 0)",
    ["run: f([7, -7], [2, 2], [3, 3]) == [4, -2]",
     "error: f([7, -7], [2, 0], [0, 3]) => division by zero"],
    """(module fusion_two_failing_ops :index-base 0
  (function f ((a i64[1,row]) (b i64[1,row]) (c i64[1,row])) (i64[1,row])
    (locals)
    (return (+ (idiv a b) (mod a c)))))""")

# ------------------------------------------------ float-to-integer cast in a chain
write_case("fusion_cast_chain",
    "cast(a * 2.5) to i64 truncates: 1*2.5 -> 2, -3*2.5 = -7.5 -> -7; 1e300 * 2.5 does\n"
    "not fit i64: invalid cast",
    ["run: f([1.0, -3.0, 0.0]) == [2, -7, 0]",
     "error: f([1.0, 1.0e+300]) => invalid cast"],
    """(module fusion_cast_chain :index-base 0
  (function f ((a f64[1,row])) (i64[1,row])
    (locals (d i64[1,row]))
    (set d (cast i64[1,row] (* a 2.5)))
    (return d)))""")

# ------------------------------------------------ sum of a map, 1-D
x = [1.0, 2.0, 3.0, 0.5]
s = 0.0
for v in x:
    s = s + (v * v + 2.0 * v)
write_case("fusion_sum_of_map",
    "sum(x*x + 2x) in one loop: 3 + 8 + 15 + 1.25 = 27.25; empty x sums to 0",
    ["run: f(%s) == %s" % (vec(x), fl(s)),
     "run: f([]) == 0.0"],
    """(module fusion_sum_of_map :index-base 0
  (function f ((x f64[1,row])) (f64)
    (locals (s f64))
    (set s (sum (+ (* x x) (* 2.0 x))))
    (return s)))""")

# ------------------------------------------------ reductions keep the storage order
big = [[1.0e16, 1.0], [-1.0e16, 1.0]]
write_case("fusion_sum_order_col",
    "sum(a * 1) of a column-major 2 x 2 accumulates down columns, as the unfused sum:\n"
    "((1e16 + -1e16) + 1) + 1 = 2 (row order would give 1)",
    ["run: f(%s) == 2.0" % mat(big)],
    """(module fusion_sum_order_col :index-base 0
  (function f ((a f64[2,col])) (f64)
    (locals)
    (return (sum (* a 1.0)))))""")
write_case("fusion_sum_order_row",
    "sum(a * 1) of a row-major 2 x 2 accumulates along rows: ((1e16 + 1) + -1e16) + 1\n"
    "= 1, since 1e16 + 1 rounds to 1e16",
    ["run: f(%s) == 1.0" % mat(big)],
    """(module fusion_sum_order_row :index-base 0
  (function f ((a f64[2,row])) (f64)
    (locals)
    (return (sum (* a 1.0)))))""")

# ------------------------------------------------ product of a map, integers
write_case("fusion_prod_of_map",
    "prod(a + 1) of i64 [1, 2, 3] = 2 * 3 * 4 = 24; a shape error in the map stays one",
    ["run: f([1, 2, 3], [0, 0, 0]) == 24",
     "error: f([1, 2, 3], [0, 0]) => shape mismatch"],
    """(module fusion_prod_of_map :index-base 0
  (function f ((a i64[1,row]) (b i64[1,row])) (i64)
    (locals (p i64))
    (set p (prod (+ (+ a 1) b)))
    (return p)))""")

# ------------------------------------------------ reuse: reassignments of one local
a, b = [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]
c = [x * 3.0 for x in a]
c = [x + y for x, y in zip(c, b)]
c = [x - y * y for x, y in zip(c, a)]
write_case("reuse_reassign",
    "c = a*3; c = c + b (into c's buffer); c = c - a*a (fused, into c's buffer):\n"
    "[3,6,9] -> [13,26,39] -> [12,22,30]",
    ["run: f(%s, %s) == %s" % (vec(a), vec(b), vec(c)),
     "error: f(%s, [1.0]) => shape mismatch" % vec(a)],
    """(module reuse_reassign :index-base 0
  (function f ((a f64[1,row]) (b f64[1,row])) (f64[1,row])
    (locals (c f64[1,row]))
    (set c (* a 3.0))
    (set c (+ c b))
    (set c (- c (* a a)))
    (return c)))""")

write_case("reuse_size_changes",
    "c starts with 2 elements, then c = a + b has 3: c's buffer is the wrong size and\n"
    "a fresh one is taken: [11, 22, 33]",
    ["run: f([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]) == [11.0, 22.0, 33.0]"],
    """(module reuse_size_changes :index-base 0
  (function f ((a f64[1,row]) (b f64[1,row])) (f64[1,row])
    (locals (c f64[1,row]))
    (set c (zeros f64[1,row] 2))
    (set c (+ a b))
    (return c)))""")

write_case("reuse_aliased_kept",
    "e shares c's array: c = c + 1 must not change e, so e stays a*2 = [2, 4, 6]",
    ["run: f([1.0, 2.0, 3.0]) == [2.0, 4.0, 6.0]"],
    """(module reuse_aliased_kept :index-base 0
  (function f ((a f64[1,row])) (f64[1,row])
    (locals (c f64[1,row]) (e f64[1,row]))
    (set c (* a 2.0))
    (set e c)
    (set c (+ c 1.0))
    (return e)))""")

x = [1.0, 2.0, 4.0]
c = [0.0, 0.0, 0.0]
for _ in range(3):
    c = [v * 0.5 + w for v, w in zip(c, x)]
write_case("reuse_in_loop",
    "three times c = c*0.5 + x from zeros, in c's own buffer: x, 1.5x, 1.75x",
    ["run: f(%s, 3) == %s" % (vec(x), vec(c)),
     "run: f(%s, 0) == [0.0, 0.0, 0.0]" % vec(x)],
    """(module reuse_in_loop :index-base 0
  (function f ((x f64[1,row]) (k i64)) (f64[1,row])
    (locals (c f64[1,row]) (i i64))
    (set c (zeros f64[1,row] (dim x 0)))
    (for (i) (range 1 k)
      (block (set c (+ (* c 0.5) x))))
    (return c)))""")

print("fusion/reuse cases written")
