//! Snapshots of what each optimizer pass does to small functions (the transformed VRIR
//! in the text form, then the pass's counters). Review a changed snapshot like code:
//! `cargo insta review`, or INSTA_UPDATE=always and read the diff.

use velociraptor::backend::load;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::vrir::text::print_module;

/// Run only `pass` on `src` and show the result with its counters.
fn only(pass: &str, src: &str) -> String {
    with(&format!("+{pass}"), src)
}

#[test]
fn redundant_checks_of_a_repeated_access() {
    insta::assert_snapshot!(only(
        "bce-redundant",
        "(module m :index-base 0
          (function f ((a f64[1,row]) (k i64) (c bool)) (f64)
            (locals (s f64) (i i64))
            (set i k)
            ; the second a[i] is redundant; the write a[i] too
            (set s (* (index a i) (index a i)))
            (set (index a i) s)
            ; checked in one branch only: not available after the if
            (if c (block (set s (+ s (index a (+ i 1))))))
            (set s (+ s (index a (+ i 1))))
            ; the right side of `and` may not run
            (if (and c (> (index a 0) 0.0)) (block (set s (+ s 1.0))))
            (set s (+ s (index a 0)))
            ; i changes: a[i] must be checked again
            (set i (+ i 1))
            (set s (+ s (index a i)))
            (return s)))"
    ));
}

#[test]
fn redundant_checks_inside_a_loop_body() {
    insta::assert_snapshot!(only(
        "bce-redundant",
        "(module m :index-base 0
          (function f ((x f64[1,row]) (y f64[1,row]) (n i64)) ()
            (locals (i i64) (t f64))
            (for (i) (range 0 n)
              (block
                (set t (index x i))
                (set (index y i) (* t (index x i)))
                (set (index y i) (+ (index y i) 1.0))))))"
    ));
}

#[test]
fn versioning_a_one_based_loop() {
    insta::assert_snapshot!(only(
        "bce-version",
        "(module m :index-base 1
          (function f ((a f64[1,col]) (n i64)) (f64)
            (locals (i i64) (s f64))
            (set s 0.0)
            (for (i) (range 2 n)
              (block (set s (+ s (* (index a (- i 1)) (index a i))))))
            (return s)))"
    ));
}

#[test]
fn versioning_a_triangular_nest_with_a_negative_step() {
    insta::assert_snapshot!(only(
        "bce-version",
        "(module m :index-base 0
          (function f ((m f64[2,row]) (n i64)) (f64)
            (locals (i i64) (j i64) (s f64))
            (set s 0.0)
            (for (i) (range (- n 1) 0 -1)
              (block
                (for (j) (range 0 i)
                  (block (set s (+ s (index m i (- i j))))))))
            (return s)))"
    ));
}

#[test]
fn versioning_keeps_checks_it_cannot_prove() {
    // b is reassigned in the loop, c[k] has a subscript the loop changes, d is never
    // assigned before the loop: only a[i] is guarded.
    insta::assert_snapshot!(only(
        "bce-version",
        "(module m :index-base 0
          (function f ((a i64[1,row]) (c i64[1,row]) (n i64)) (i64)
            (locals (i i64) (k i64) (s i64) (b i64[1,row]) (d i64[1,row]))
            (set s 0)
            (set k 0)
            (for (i) (range 0 n)
              (block
                (set b (zeros i64[1,row] (+ i 1)))
                (set s (+ s (+ (index a i) (index b i))))
                (set k (+ k 2))
                (set s (+ s (index c k)))
                (if (< s 0) (block (set s (index d i))))))
            (return s)))"
    ));
}

#[test]
fn allocating_subexpressions_become_temporaries() {
    insta::assert_snapshot!(only(
        "simplify",
        "(module m :index-base 0
          (function f ((a f64[1,row]) (b f64[1,row]) (c bool) (n i64)) (f64[1,row])
            (locals (d f64[1,row]) (s f64) (i i64) (u f64[1,row]))
            (set d (+ (* a 2.0) (sqrt b)))
            (set s (sum (- d (index a (range 0 1)))))
            ; the right side of `and` may not run: nothing leaves it
            (if (and c (> (sum (* a a)) 0.0)) (block (set s 1.0)))
            ; what a condition hoists goes before the `if`, never into a branch
            (if (> (sum (* b b)) 0.0) (block (set s 2.0)) (block (set s 3.0)))
            ; a[0] may fail before (* a 3.0) runs: the product stays
            (set d (+ (index a 0) (* a 3.0)))
            ; u may be unassigned: reading it first may fail, so (* b 2.0) stays
            (if c (block (set u a)))
            (set d (+ u (* b 2.0)))
            (parfor (i) (range 0 n) (block (set (index d i) (sum (* a a)))))
            (return (+ d (* b s)))))"
    ));
}

/// Run the passes `spec` switches on (after `none`) on `src`.
fn with(spec: &str, src: &str) -> String {
    let m = load(src).unwrap();
    let opts = OptOptions::parse(&format!("none,{spec}")).unwrap();
    let (out, stats) = optimize(&m, &opts).unwrap();
    format!("{}{stats}", print_module(&out))
}

#[test]
fn fusion_of_simplified_chains_and_a_sum_of_a_map() {
    insta::assert_snapshot!(with(
        "+simplify,+fusion",
        "(module m :index-base 0
          (function f ((a f64[1,row]) (b f64[1,row]) (x f64[2,col]) (k i64[1,row])) (f64)
            (locals (d f64[1,row]) (s f64) (q i64[1,row]) (u f64[1,row]))
            ; two temporaries absorbed: one loop, guarded by a and b having one shape
            (set d (+ (* a 2.0) (sqrt b)))
            ; reduce of a map: one accumulation loop in column-major storage order
            (set s (sum (+ (* x x) (sin x))))
            ; two operations that may fail (integer idiv, mod): left as written
            (set q (+ (idiv k k) (mod k 3)))
            ; a single operation: nothing to fuse
            (set u (+ d 1.0))
            (return (+ s (sum u)))))"
    ));
}

#[test]
fn fusion_keeps_a_temporary_that_is_read_twice() {
    insta::assert_snapshot!(with(
        "+fusion",
        "(module m :index-base 1
          (function f ((a f64[2,row]) (b f64[2,row])) (f64[2,row])
            (locals (t f64[2,row]) (d f64[2,row]))
            (set t (* a b))
            (set d (- (* t 2.0) (neg b)))
            (set d (+ d t))
            (return d)))"
    ));
}

#[test]
fn reuse_writes_into_an_unaliased_local() {
    insta::assert_snapshot!(with(
        "+reuse",
        "(module m :index-base 0
          (function f ((a f64[1,row]) (b f64[1,row])) (f64[1,row])
            (locals (c f64[1,row]) (e f64[1,row]) (g f64[1,row]))
            (set c (* a 3.0))
            ; c holds a buffer and nothing else shares it: in place when the size fits
            (set c (+ c b))
            ; e shares g's array: g's buffer stays
            (set g (* a 2.0))
            (set e g)
            (set g (+ g 1.0))
            ; a parameter is never written in place
            (set a (+ a b))
            (return (+ c (+ e g)))))"
    ));
}

#[test]
fn reuse_of_a_fused_loop() {
    insta::assert_snapshot!(with(
        "+simplify,+fusion,+reuse",
        "(module m :index-base 0
          (function f ((x f64[1,row]) (n i64)) (f64[1,row])
            (locals (c f64[1,row]) (i i64))
            (set c (zeros f64[1,row] (dim x 0)))
            (for (i) (range 1 n)
              (block (set c (+ (* c 0.5) x))))
            (return c)))"
    ));
}

/// For cpu-par, a fused loop above the element-wise threshold has the form
/// `(if (>= COUNT N) (parfor L) (for L))`; reuse writes both loops into c's own buffer
/// (each element read at its own index before it is written, by the one iteration that
/// writes it), where the serial backend's snapshot above writes its one loop.
#[test]
fn reuse_of_a_fused_loop_for_a_parallel_backend() {
    let m = load(
        "(module m :index-base 0
          (function f ((x f64[1,row]) (n i64)) (f64[1,row])
            (locals (c f64[1,row]) (i i64))
            (set c (zeros f64[1,row] (dim x 0)))
            (for (i) (range 1 n)
              (block (set c (+ (* c 0.5) x))))
            (return c)))",
    )
    .unwrap();
    let opts = OptOptions {
        parallel_loops: true,
        ..OptOptions::parse("none,+simplify,+fusion,+reuse").unwrap()
    };
    let (out, stats) = optimize(&m, &opts).unwrap();
    insta::assert_snapshot!(format!("{}{stats}", print_module(&out)));
}

#[test]
fn fusion_keeps_a_failing_temporary_from_another_line() {
    // t's division may fail and its error names line 2: t stays; u's product (line 4,
    // cannot fail) is absorbed into line 5's loop.
    insta::assert_snapshot!(with(
        "+fusion",
        "(module m :index-base 0
          (function f ((a i64[1,row]) (b i64[1,row])) (i64[1,row])
            (locals (t i64[1,row]) (u i64[1,row]) (d i64[1,row]))
            (set t (idiv a b) :line 2)
            (set d (- (+ t b) a) :line 3)
            (set u (* a b) :line 4)
            (set d (- (+ u d) b) :line 5)
            (return d)))"
    ));
}

/// For a backend that runs `parfor` in parallel (cpu-par), a fused loop with no
/// operation that can fail becomes `parfor` above the element-wise threshold; one with
/// a fallible operation (integer division) stays a serial loop in logical order.
#[test]
fn fusion_for_a_parallel_backend() {
    let m = load(
        "(module m :index-base 0
          (function f ((a f64[1,row]) (b f64[1,row]) (k i64[1,row])) (f64[1,row] i64[1,row])
            (locals (d f64[1,row]) (q i64[1,row]))
            (set d (+ (* a 2.0) (sqrt b)))
            (set q (+ (idiv k 2) 1))
            (return d q)))",
    )
    .unwrap();
    let opts = OptOptions { parallel_loops: true, ..OptOptions::parse("none,+simplify,+fusion").unwrap() };
    let (out, stats) = optimize(&m, &opts).unwrap();
    insta::assert_snapshot!(format!("{}{stats}", print_module(&out)));
}

#[test]
fn extents_read_in_loops_are_hoisted() {
    insta::assert_snapshot!(only(
        "hoist-dims",
        "(module m :index-base 0
          (function f ((a f64[2,row]) (c bool)) (f64)
            (locals (i i64) (j i64) (k i64) (s f64) (b f64[1,row]) (u f64[1,row]))
            (set s 0.0)
            (set k 0)
            ; the outer domain runs once: (dim a 0) stays; the inner domain and the
            ; subscript read (dim a 1) on every iteration of i: one local before i
            (for (i) (range 0 (- (dim a 0) 1))
              (block
                (for (j) (range 0 (- (dim a 1) 1))
                  (block (set s (+ s (index a i (- (- (dim a 1) 1) j))))))))
            ; a `while` condition runs every iteration: hoisted before the while
            (while (< k (dim a 0)) (block (set k (+ k 1))))
            ; b is reassigned in the loop: its extent stays
            (set b (zeros f64[1,row] 1))
            (for (i) (range 0 3)
              (block
                (set s (+ s (cast f64 (dim b 0))))
                (set b (zeros f64[1,row] (+ i 2)))))
            ; u may be unassigned before the loop: reading it early could fail
            (if c (block (set u (zeros f64[1,row] 2))))
            (for (i) (range 0 k) (block (set s (+ s (cast f64 (dim u 0))))))
            (return s)))"
    ));
}

#[test]
fn extents_are_hoisted_after_versioning() {
    // bce-version reads (dim a 0) in the bounds and TEST; hoist-dims then serves both
    // copies of the nest from one local set before the enclosing while loop.
    insta::assert_snapshot!(with(
        "+bce-version,+hoist-dims",
        "(module m :index-base 0
          (function f ((a f64[1,row]) (n i64)) (f64)
            (locals (i i64) (r i64) (s f64))
            (set s 0.0)
            (set r 0)
            (while (< r n)
              (block
                (for (i) (range 1 (- (dim a 0) 1))
                  (block (set s (+ s (index a (- i 1))))))
                (set r (+ r 1))))
            (return s)))"
    ));
}

#[test]
fn index_arith_rewrites_exact_float_index_arithmetic() {
    insta::assert_snapshot!(only(
        "index-arith",
        "(module m :index-base 1
          (function f ((a f64[1,col]) (j i32) (k i64) (c bool)) (f64)
            (locals (s f64))
            ; exact: an i32 and whole constants, every value within 2^53
            (set s (index a (cast i64 (- (cast f64 j) 1.0))))
            (set s (+ s (index a (cast i64 (+ (* 2.0 (cast f64 j)) (cast f64 c))))))
            ; (2^31 * 2^22 = 2^53 is still exact)
            (set s (+ s (cast f64 (cast i64 (* (cast f64 j) 4194304.0)))))
            ; kept: 2^31 * 2^23 may round; an i64 leaf; a fraction; a division
            (set s (+ s (cast f64 (cast i64 (* (cast f64 j) 8388608.0)))))
            (set s (+ s (index a (cast i64 (- (cast f64 k) 1.0)))))
            (set s (+ s (index a (cast i64 (+ (cast f64 j) 0.5)))))
            (set s (+ s (index a (cast i64 (/ (cast f64 j) 2.0)))))
            (return s)))"
    ));
}

#[test]
fn licm_moves_invariant_assignments_that_cannot_fail() {
    insta::assert_snapshot!(only(
        "licm",
        "(module m :index-base 0
          (function f ((a f64[1,row]) (m i32) (n i64) (d i64) (x f64)) (f64)
            (locals (i i64) (s f64) (t1 i64) (t2 i64) (t3 i64) (t4 i64) (t5 i64) (t6 i64) (t7 i64))
            (set s 0.0)
            (set t5 0)
            (for (i) (range 0 n)
              (block
                ; moves, then t2 (reading t1) moves after it
                (set t1 (- (cast i64 m) 1))
                (set t2 (+ t1 (dim a 0)))
                ; stays: reads the loop index
                (set t3 (+ i 1))
                ; stays: integer division may fail
                (set t4 (idiv n d))
                ; stays: t5 is read before it is assigned (live before the loop)
                (set s (+ s (cast f64 t5)))
                (set t5 n)
                ; stays: a float-to-integer cast may fail
                (set t6 (cast i64 x))
                ; stays: t7 is read after the loop
                (set t7 n)
                (set s (+ s (cast f64 (+ (+ (+ t2 t3) t4) t6))))))
            (return (+ s (cast f64 t7)))))"
    ));
}

#[test]
fn versioning_an_r_nest_with_i32_copies_and_a_computed_step() {
    // What the R front end emits for `for (j in 2L:(n - 1L)) for (i in 2L:(m - 1L))
    // b[i, j] <- a[i, j - 1L] + a[i + 1L, j]`: i32 copies of the loop indices, i64
    // temporaries narrowed back to i32, overflow checks, R's counting-down step.
    insta::assert_snapshot!(with(
        "+licm,+bce-version",
        "(module m :index-base 1
          (function f ((a f64[2,col]) (b f64[2,col]) (m i32) (n i32)) ()
            (locals (i i32) (j i32) (_i1 i64) (_i2 i64) (_t1 i64) (_t2 i64) (_t3 i64) (_t4 i64))
            (set _t1 (- (cast i64 n) 1))
            (for (_i1) (range 2 _t1 (- (* 2 (cast i64 (<= 2 _t1))) 1))
              (block
                (set j (cast i32 _i1))
                (set _t2 (- (cast i64 m) 1))
                (for (_i2) (range 2 _t2 (- (* 2 (cast i64 (<= 2 _t2))) 1))
                  (block
                    (set i (cast i32 _i2))
                    (set _t3 (- (cast i64 j) 1))
                    (if (> _t3 2147483647) (block (expr (call g))))
                    (set _t4 (+ (cast i64 i) 1))
                    (set (index b i j)
                      (+ (index a i (cast i32 _t3)) (index a (cast i32 _t4) j))))))))
          (function g () (i32) (locals) (return (cast i32 nan))))"
    ));
}
