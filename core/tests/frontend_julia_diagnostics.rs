//! What the Julia front end refuses: each construct outside the compiled subset is an
//! error that names it, the function and the line (so the Velociraptor.jl adapter can
//! warn and run the function in Julia), never a different answer. And no input makes it
//! panic: token soup goes through the parser and the engine, and whatever compiles
//! passes the verifier.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use proptest::prelude::*;
use serde_json::{json, Value as Json};
use velociraptor::frontend::julia;
use velociraptor::vrir::verify;
use velociraptor::ErrorKind;

const REFUSED: &str = include_str!("frontend_julia/refused.jl");

#[test]
fn refused_constructs_are_named_with_function_and_line() {
    let v = json!([1.0, 2.0]);
    let cases: Vec<(&str, Json, ErrorKind, u32, &str)> = vec![
        ("prints", json!([1.0]), ErrorKind::Unsupported, 7, "`println` (printing)"),
        ("grows", json!([v]), ErrorKind::Unsupported, 12, "`push!` (arrays that change length)"),
        ("lambda", json!([v]), ErrorKind::Unsupported, 16, "call to `map`"),
        ("float_range", json!([]), ErrorKind::Unsupported, 20, "range of Float64"),
        ("loop_local", json!([3]), ErrorKind::Unsupported, 30, "variable `last` read outside the loop"),
        ("view_written", json!([[[1.0, 2.0], [3.0, 4.0]]]), ErrorKind::Unsupported, 34, "`@view`"),
        ("area", json!([1.0]), ErrorKind::Unsupported, 39, "2 methods (multiple dispatch)"),
        ("int_condition", json!([1]), ErrorKind::Type, 43, "TypeError: non-boolean (Int64) used in boolean context"),
        ("scalar_sin", json!([v]), ErrorKind::Unsupported, 49, "broadcast it: `sin.(x)`"),
        ("vector_plus", json!([v]), ErrorKind::Unsupported, 51, "MethodError"),
        ("fields", json!([{"re": 1.0, "im": 0.0}]), ErrorKind::Unsupported, 53, "field access `.re`"),
        ("float32", json!([]), ErrorKind::Unsupported, 55, "Float32 literal"),
        ("reads_global", json!([1.0]), ErrorKind::Unsupported, 57, "variable `counter`"),
        ("strings", json!([1.0]), ErrorKind::Unsupported, 63, "strings and printing"),
        ("rank_change", json!([v]), ErrorKind::Unsupported, 65, "broadcast `.+` of a Vector{Float64} and a Matrix{Float64}"),
        ("declared_local", json!([1]), ErrorKind::Unsupported, 68, "type declaration `z::ComplexF64` of a local variable"),
    ];
    let mut failures = Vec::new();
    for (func, args, kind, line, words) in &cases {
        match julia::compile_for_json(REFUSED, func, args.as_array().unwrap()) {
            Ok(_) => failures.push(format!("{func}: compiled")),
            Err(e) => {
                let ok = e.kind == *kind && e.message.contains(words) && e.line == Some(*line) && e.function.as_deref() == Some(*func);
                if !ok {
                    failures.push(format!("{func}: {e:?} (want {} at line {line} naming `{words}`)", kind.name()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_function_that_does_not_parse_reports_its_parse_error() {
    let e = julia::compile_for_json(REFUSED, "broken", &[json!(1.0)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Parse, "{e}");
    assert!(e.message.contains("line 60") || e.message.contains("line 61"), "{e}");
    // The rest of the file still compiles.
    julia::compile_for_json(REFUSED, "prints", &[json!(1.0)]).unwrap_err();
    assert!(julia::compile_for_json(REFUSED, "strings", &[json!(1.0)]).is_err());
    let e = julia::compile_for_json(REFUSED, "no_such", &[]).unwrap_err();
    assert!(e.message.contains("no function `no_such`"), "{e}");
}

/// Tokens of Julia's numeric subset, and some it does not have.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "x",
        "y",
        "A",
        "i",
        "n",
        "1",
        "2.5",
        "0",
        "end",
        "for",
        "in",
        "1:n",
        "if",
        "else",
        "elseif",
        "while",
        "return",
        "begin",
        "(",
        ")",
        "[",
        "]",
        ",",
        ";",
        "\n",
        "+",
        "-",
        "*",
        "/",
        "^",
        "÷",
        "%",
        "=",
        "+=",
        ".=",
        ".+",
        ".*",
        "==",
        "<",
        "&&",
        "||",
        "!",
        "?",
        ":",
        "@.",
        "@inbounds",
        "@view",
        "sin",
        "sum",
        "zeros(n)",
        "x[i]",
        "A[i, j]",
        "'",
        "im",
        "true",
        "let",
        "local",
        "Threads.@threads",
        "@gpu",
        "a, b",
        "for i in 1:n",
        "[k for k in 1:n]",
        "x -> x",
        "\"s\"",
        "::Int",
        "#= c =#",
        "1e3",
        "0x1f",
        "...",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn token_soup_never_panics(body in prop::collection::vec(token(), 0..40), arg in prop::sample::select(vec![json!(3), json!(2.5), json!([1.0, 2.0]), json!([[1, 2], [3, 4]])])) {
        let src = format!("function f(x, n)\n{}\nend\n", body.join(" "));
        if let Ok((m, _)) = julia::compile_for_json(&src, "f", &[arg, json!(2)]) {
            prop_assert!(verify::verify_module(&m).is_ok(), "{src}");
        }
    }
}

/// Source as Velociraptor.jl hands it over (Julia's printing of the definitions, with
/// `#= FILE:LINE =#` comments, `@__dot__`, `for i = r`, `where T <: Real`): it compiles,
/// and errors name the lines of the user's file, not of the printed text.
#[test]
fn printed_source_keeps_the_users_lines() {
    const PRINTED: &str = include_str!("frontend_julia/printed.jl");
    let run = |f: &str, args: Json| {
        let (m, values) = julia::compile_for_json(PRINTED, f, args.as_array().unwrap())?;
        velociraptor::backend::execute(velociraptor::backend::Backend::Interp, &m, &julia::entry_name(f), values).map_err(julia::explain_error)
    };
    let r = run("fib", json!([10])).unwrap();
    assert_eq!(velociraptor::backend::results_to_json(&r), json!(55));
    let r = run("g", json!([[1.0, 2.0]])).unwrap();
    assert_eq!(
        velociraptor::backend::results_to_json(&r),
        json!([{"data": [6.0, 12.0], "dtype": "f64", "shape": [2]}, {"data": [1, 4, 9], "dtype": "i64", "shape": [3]}])
    );
    let e = run("h", json!([[1.0]])).unwrap_err();
    assert_eq!((e.kind, e.line, e.function.as_deref()), (ErrorKind::OutOfBounds, Some(21), Some("h")), "{e}");
}
