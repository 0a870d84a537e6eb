//! What the R front end refuses: each unsupported construct gives a diagnostic naming
//! the construct, the function and the line (ErrorKind::Unsupported, or Type for a
//! variable whose type cannot be unified), never a module that computes something else.

use velociraptor::frontend::r;
use velociraptor::frontend::types::Ty;
use velociraptor::vrir::ScalarType;
use velociraptor::ErrorKind;

fn diag(src: &str) -> velociraptor::VrError {
    let double = Ty::scalar(ScalarType::F64);
    r::compile(src, "f", vec![double]).expect_err("must not compile")
}

#[track_caller]
fn check(src: &str, kind: ErrorKind, construct: &str, line: u32) {
    let e = diag(src);
    assert_eq!(e.kind, kind, "{e}");
    assert!(e.message.contains(construct), "`{construct}` not named in: {e}");
    assert!(e.message.contains(&format!("line {line}")), "line {line} not named in: {e}");
    assert_eq!(e.line, Some(line), "{e}");
    assert_eq!(e.function.as_deref(), Some("f"), "{e}");
}

#[test]
fn unsupported_constructs_are_named_with_their_line() {
    use ErrorKind::Unsupported as U;
    check("f <- function(x) {\n  l <- list(a = x)\n  sum(l)\n}", U, "list `l` used as a value", 3);
    check("f <- function(x) {\n  s <- \"text\"\n  x\n}", U, "string", 2);
    check("f <- function(x) {\n  y <<- x\n  x\n}", U, "<<-", 2);
    check("f <- function(x) {\n\n  tapply(x, x, sum)\n}", U, "apply family", 3);
    check("f <- function(x) UseMethod(\"f\")", U, "S3/S4", 1);
    check("f <- function(x) {\n  e <- new.env()\n  x\n}", U, "environments", 2);
    check("f <- function(x) x$a", U, "`x$a`", 1);
    check("f <- function(x) data.frame(x)", U, "data frames", 1);
    check("f <- function(x) paste(x)", U, "strings", 1);
    check("f <- function(x) mystery(x)", U, "`mystery`", 1);
    // A closure that escapes (closures called or given to a functional compile).
    check("f <- function(x) {\n  g <- function(y) y\n  g\n}", U, "function `g` used as a value", 3);
    // R's logical NA compiles only where it becomes a double (or complex) NA.
    check("f <- function(x) {\n  y <- NA\n  x\n}", U, "`NA`", 2);
    check("f <- function(x) as.integer(x) + NA", U, "`NA`", 1);
    check("f <- function(x) {\n  v <- logical(3)\n  v[1] <- NA\n  x\n}", U, "`NA`", 3);
}

#[test]
fn free_variables_must_be_constants() {
    let e = diag("f <- function(x) x * unknown_global");
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("`unknown_global`") && e.message.contains("line 1"), "{e}");
    // A top-level constant is fine.
    assert!(r::compile("K <- 2\nf <- function(x) x * K", "f", vec![Ty::scalar(ScalarType::F64)]).is_ok());
}

#[test]
fn a_variable_that_cannot_be_unified_is_an_error() {
    // A scalar and a vector meet as a vector (R has no scalars: frontend_r_coverage.rs);
    // a scalar and a matrix do not (R's `dim` attribute).
    let src = "f <- function(x) {\n  y <- 1\n  if (x > 0) y <- matrix(0, 2, 2)\n  y\n}";
    let e = diag(src);
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(e.message.contains("`y`") && e.message.contains("line 3"), "{e}");
    assert!(e.message.contains("double scalar") && e.message.contains("double matrix"), "{e}");
}

#[test]
fn arrays_of_different_ranks_do_not_mix_silently() {
    let mat = Ty::array(ScalarType::F64, 2);
    let cube = Ty::array(ScalarType::F64, 3);
    let e = r::compile("f <- function(m, a) m + a", "f", vec![mat, cube]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("`+`") && e.message.contains("line 1"), "{e}");
}

/// Lengths R would recycle (a multiple) or warn about: a run-time error on every
/// backend naming the function, the line and both lengths in operand order, of kind
/// `unsupported` so that the R adapter runs the function in R.
#[test]
fn lengths_that_do_not_recycle_raise_naming_both() {
    use serde_json::json;
    use velociraptor::backend::{self, Backend};
    let src = "f <- function(x, y) {\n  z <- x * 2\n  z + y\n}";
    let mat = json!({"dtype": "f64", "shape": [3, 2], "data": [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]});
    let cases = [
        (json!([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0]]), "lengths 4 and 3"),
        (json!([[1.0, 2.0], [1.0, 2.0, 3.0, 4.0]]), "lengths 2 and 4"),
        (json!([[], [1.0, 2.0]]), "lengths 0 and 2"),
        (json!([mat, [1.0, 2.0, 3.0]]), "lengths 6 and 3"),
    ];
    for (args, lengths) in cases {
        let (m, values) = r::compile_for_json(src, "f", args.as_array().unwrap()).unwrap_or_else(|e| panic!("{args}: {e}"));
        for b in Backend::available() {
            let e = backend::execute(b, &m, "f", values.clone()).map(|_| ()).map_err(r::explain_error).expect_err("must raise");
            assert_eq!(e.kind, ErrorKind::Unsupported, "{b} {args}: {e}");
            assert_eq!((e.function.as_deref(), e.line), (Some("f"), Some(3)), "{b} {args}: {e}");
            assert!(e.message.contains(lengths) && e.message.contains("recycles"), "{b} {args}: `{lengths}` not in {e}");
        }
    }
}

/// The C API hands hosts the error as text (`VrError`'s display form); the lengths are
/// recovered from it too. -(2^32 + 4 * 2^26 + 2) encodes lengths 4 and 2.
#[test]
fn recycling_lengths_survive_the_c_api_message() {
    let helper = "_error_recycling__f__3";
    let text = format!("runtime error in {helper} (line 3): invalid cast: f64 value -4563402754 does not fit i32");
    let mut e = velociraptor::VrError::new(ErrorKind::Runtime, text).with_function(helper);
    e.line = Some(3);
    let e = r::explain_error(e);
    assert_eq!((e.kind, e.function.as_deref(), e.line), (ErrorKind::Unsupported, Some("f"), Some(3)), "{e}");
    assert!(e.message.contains("lengths 4 and 2"), "{e}");
}

#[test]
fn recursion_without_a_base_case_cannot_be_typed() {
    let e = diag("f <- function(x) f(x - 1)");
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(e.message.contains("`f`"), "{e}");
}

#[test]
fn parse_errors_name_the_line() {
    let e = diag("f <- function(x) {\n  x +\n}\n");
    assert_eq!(e.kind, ErrorKind::Parse);
    assert!(e.message.contains("line 3"), "{e}");
}

#[test]
fn missing_functions_and_arguments_are_reported() {
    let e = r::compile("g <- function(x) x", "f", vec![]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("`f`") && e.message.contains("g"), "{e}");
    let e = r::compile("f <- function(x, y) x", "f", vec![Ty::scalar(ScalarType::F64)]).unwrap_err();
    assert!(e.message.contains("`y`"), "{e}");
}

mod no_panics {
    use super::*;
    use proptest::prelude::*;

    /// Fragments of R: random sequences of them are mostly nonsense, sometimes valid.
    const TOKENS: &[&str] = &[
        "f <- function(x) ", "{", "}", "(", ")", "[", "]", "[[", "]]", ",", "\n", "x", "y", "i", "1", "2L", "2.5", "1i",
        "TRUE", "NA", "NaN", "Inf", "+", "-", "*", "/", "^", "%%", "%/%", "%*%", ":", "<", "==", "!", "&", "&&", "||",
        "<-", "=", "->", "if (x > 1) ", "else ", "for (i in 1:3) ", "while (FALSE) ", "repeat break", "next", "return(x)",
        "sum(x)", "length(x)", "matrix(0, 2, 2)", "c(1, 2)", "x[1]", "x[i, ]", "numeric(3)", "seq_len(2)", "f(x)", "g(1)",
        "\"s\"", "list(1)", "y <<- 1", "x$a", "#c\n", "prange(3)", "gpu({ x })",
        "x <- x + 1\n", "y <- x * 2L\n", "s <- 0\n", "for (i in seq_len(3)) s <- s + i\n", "if (s > 0) y <- 1 else y <- 2\n",
        "z <- numeric(2)\n", "z[1] <- s\n", "while (s < 3) s <- s + 1\n", "s <- g(s)\n", "x\n", "s\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]
        #[test]
        fn arbitrary_token_soup_never_panics(picks in proptest::collection::vec(0..TOKENS.len(), 0..40), rank in 0u32..3) {
            let soup: String = picks.iter().map(|&i| TOKENS[i]).collect();
            let _ = r::parser::parse_program(&soup);
            // Inside a function body, more of them parse and reach the engine; whatever
            // compiles must pass the verifier.
            let src = format!("g <- function(x) x + 1\nf <- function(x) {{\n{soup}\n}}\n");
            for elem in [ScalarType::F64, ScalarType::I32, ScalarType::Bool] {
                for s in [&soup, &src] {
                    if let Ok(m) = r::compile(s, "f", vec![Ty::array(elem, rank)]) {
                        prop_assert!(velociraptor::vrir::verify::verify_module(&m).is_ok(), "{s}: {:?}", velociraptor::vrir::verify::verify_module(&m));
                    }
                }
            }
        }
    }
}

#[test]
fn a_vector_stored_into_one_element_is_refused() {
    let v = Ty::array(ScalarType::F64, 1);
    let e = r::compile("f <- function(x) {\n  x[1] <- x\n  x\n}", "f", vec![v]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("line 2") && e.message.contains("`x[...]`"), "{e}");
}
