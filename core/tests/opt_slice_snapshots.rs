//! Snapshots of R's vector style over slices: `slice-views` (slices of arrays nothing
//! writes read in place), and `fusion` of chains over those views into stores of
//! selections (`der[2:(n-1)] <- ...`), with scalar statements between the chain and its
//! store stepped over. The transformed VRIR in the text form, then the counters; review
//! a changed snapshot like code (`cargo insta review`).

use velociraptor::backend::load;
use velociraptor::opt::{optimize, OptOptions};
use velociraptor::vrir::text::print_module;

/// Run the passes `spec` (after `none`) on `src`.
fn with(spec: &str, src: &str) -> String {
    let m = load(src).unwrap();
    let opts = OptOptions::parse(&format!("none,{spec}")).unwrap();
    let (out, stats) = optimize(&m, &opts).unwrap();
    format!("{}{stats}", print_module(&out))
}

#[test]
fn slices_of_an_unwritten_array_become_views() {
    insta::assert_snapshot!(with(
        "+slice-views",
        "(module m :index-base 1
          (function f ((x f64[1,col]) (n i64)) (f64[1,col])
            (locals (xm f64[1,col]) (xp f64[1,col]) (t f64[1,col]) (u f64[1,col]))
            (set xm (index x (range 1 (- n 1))))
            (set xp (index x (range 2 n)))
            ; xm is the first array operand: read as a copy in its former layout
            (set t (- xm xp))
            ; xp the second: read in place
            (set u (* 2.0 t))
            (set u (- u xp))
            ; a copy of a view is retyped too
            (set t xp)
            (return (+ (cast f64[1,col] t) (index xm 1)))))"
    ));
}

#[test]
fn slices_of_a_written_array_stay_copies() {
    insta::assert_snapshot!(with(
        "+slice-views",
        "(module m :index-base 1
          (function f ((x f64[1,col]) (n i64)) (f64[1,col])
            (locals (y f64[1,col]) (z f64[1,col]) (w f64[1,col]))
            (set y (copy x))
            ; y is written below: its slice stays a copy
            (set z (index y (range 1 n)))
            (set (index y 1) 0.0)
            ; w is written itself: a copy
            (set w (index x (range 1 n)))
            (set (index w 1) 1.0)
            (return (+ z w))))"
    ));
}

#[test]
fn a_chain_over_shifted_slices_fuses_into_its_store() {
    // R's rosen_der in vector style, the interior as three shifted slices.
    insta::assert_snapshot!(with(
        "+simplify,+slice-views,+fusion",
        "(module m :index-base 1
          (function f ((x f64[1,col])) (f64[1,col])
            (locals (n i64) (der f64[1,col]) (xm f64[1,col]) (xi f64[1,col]) (xp f64[1,col])
                    (k i64) (t f64[1,col]))
            (set n (len x))
            (set xm (index x (range 1 (- n 2))))
            (set xi (index x (range 2 (- n 1))))
            (set xp (index x (range 3 n)))
            (set der (zeros f64[1,col] n))
            (set (index der (range 2 (- n 1)))
              (- (* 200.0 (- xi (* xm xm))) (* (* 400.0 (- xp (* xi xi))) xi)) :line 7)
            ; a scalar statement between a temporary and its store is stepped over: it
            ; runs after the fused loop, before the store
            (set t (* xi 2.0) :line 8)
            (set k (- n 1) :line 8)
            (set (index der (range 2 k)) (+ t (sqrt xi)) :line 8)
            (return der)))"
    ));
}

#[test]
fn a_row_times_a_column_summed_into_an_element() {
    // R's `c[i, j] <- sum(a[i, ] * b[, j])` (the R front end's sum keeps f80): the
    // slices are views, the product one loop, the sum folds it as written.
    insta::assert_snapshot!(with(
        "+simplify,+slice-views,+fusion",
        "(module m :index-base 1
          (function f ((a f64[2,col]) (b f64[2,col]) (i i64) (j i64)) (f64[2,col])
            (locals (c f64[2,col]))
            (set c (zeros f64[2,col] (dim a 0) (dim b 1)))
            (set (index c i j) (sum (* (index a i :) (index b : j)) :acc f80))
            (set (index c j i) (sum (* (index a i :) (+ (index b : j) 1.0))))
            (return c)))"
    ));
}

#[test]
fn scalar_statements_a_chain_reads_run_before_its_loop() {
    // R's `cnd` in vector style after hoist-scalars: `_s1`, `_s2` sit between the
    // temporaries; they cannot fail, so they run first and the chain is one loop.
    insta::assert_snapshot!(with(
        "+fusion",
        "(module m :index-base 1
          (function f ((d f64[1,col])) (f64[1,col])
            (locals (k f64[1,col]) (_s1 f64) (_t1 f64[1,col]) (_s2 f64) (_t2 f64[1,col])
                    (r f64[1,col]))
            (set k (/ 1.0 (+ 1.0 (* 0.25 (abs d)))) :line 2)
            (set _s1 (neg 0.5) :line 3)
            (set _t1 (* _s1 d) :line 3)
            (set _s2 (neg 1.5) :line 3)
            (set _t2 (+ _s2 (* k 1.25)) :line 3)
            (set r (* (exp (* _t1 d)) (* k _t2)) :line 3)
            (return r)))"
    ));
}

#[test]
fn a_store_into_an_array_the_chain_may_share_goes_through_a_fresh_array() {
    // x and y are parameters that may share storage (no host promise): the chain into
    // x's selection is computed into a fresh array first, then stored as written.
    insta::assert_snapshot!(with(
        "+fusion",
        "(module m :index-base 1
          (function f ((x f64[1,col]) (y f64[1,col]) (n i64)) ()
            (set (index x (range 2 n)) (+ (* y 2.0) 1.0))
            (return)))"
    ));
}
