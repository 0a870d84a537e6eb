//! The text form of VRIR: printed snapshots, round trips, parse errors with positions,
//! robustness against truncated and mutated input, and the JSON form next to it.

use velociraptor::vrir::text::{parse_module, parse_type, print_expr, print_module};
use velociraptor::vrir::*;

const DOT: &str = "\
; dot product, 0-based
(module dot :index-base 0
  (function dot ((x f64[1,row]) (y f64[1,row])) (f64)
    (locals (i i64) (s f64))
    (set s 0.0)
    (for (i) (range 0 (- (dim x 0) 1))
      (block
        (set s (+ s (* (index x i) (index y i))))))
    (return s)))
";

#[test]
fn doc_example_parses_and_prints_back() {
    let m = parse_module(DOT).unwrap();
    let printed = print_module(&m);
    assert_eq!(printed, DOT.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n");
}
