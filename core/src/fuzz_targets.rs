//! Fuzz targets: the bodies that coverage-guided fuzzing (fuzz/, cargo-afl with AFL++,
//! `scripts/fuzz.sh`) runs on generated inputs, and that `core/tests/fuzz_corpus.rs`
//! replays over the committed corpora in tests/fuzz/<target>/ (docs/testing.md). One
//! body serves both, so what CI replays is exactly what was fuzzed.
//!
//! A body returns normally for every input: an error is a correct answer to bad input.
//! A panic (or an endless loop) is the bug the fuzzer looks for. Inputs that are not
//! UTF-8 are skipped: every entry point takes `&str`, and the hosts hand text over.
//! The front-end bodies compile the file's first function, so a seed that is one
//! function of the front-end tests reaches the type inference and the lowering, for two
//! fixed signatures (every argument a double scalar; every argument a double vector, a
//! 1-by-n matrix in MATLAB).
//! Whatever a front end produces must pass the verifier: a module it rejects would be a
//! front-end bug that later stages report as a confusing error, so it fails the target.

use crate::frontend::types::Ty;
use crate::frontend::{julia, matlab, r};
use crate::vrir::{json, text, verify, Module, ScalarType};

/// Every target by name (the names of tests/fuzz/'s folders and of `scripts/fuzz.sh`'s
/// first argument).
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("vrir_text", vrir_text),
    ("vrir_json", vrir_json),
    ("vrir_verify", vrir_verify),
    ("r_parser", r_parser),
    ("r_frontend", r_frontend),
    ("matlab_frontend", matlab_frontend),
    ("julia_frontend", julia_frontend),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// At most this many arguments are passed: the signatures stay small, and a function
/// with more formals takes defaults for the rest (or reports the missing argument).
const MAX_ARGS: usize = 3;

/// The VRIR text parser alone.
pub fn vrir_text(data: &[u8]) {
    if let Ok(src) = std::str::from_utf8(data) {
        let _ = text::parse_module(src);
    }
}

/// The JSON loader (the C API's form), then the verifier on what it loaded, as the C
/// API does before anything runs.
pub fn vrir_json(data: &[u8]) {
    if let Ok(src) = std::str::from_utf8(data) {
        if let Ok(m) = json::from_json(src) {
            let _ = verify::verify_module(&m);
        }
    }
}

/// The verifier on modules the text parser accepts (the text form reaches every
/// construct with fewer bytes than JSON).
pub fn vrir_verify(data: &[u8]) {
    if let Ok(src) = std::str::from_utf8(data) {
        if let Ok(m) = text::parse_module(src) {
            let _ = verify::verify_module(&m);
        }
    }
}

/// The R parser, and the reading of the parsed file into functions and constants
/// (lifting of nested functions, section directives).
pub fn r_parser(data: &[u8]) {
    if let Ok(src) = std::str::from_utf8(data) {
        let _ = r::program(src);
    }
}

/// The R front end: source to VRIR for the file's first function.
pub fn r_frontend(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(exprs) = r::parser::parse_program(src) else {
        return;
    };
    use crate::frontend::hir::ExprKind;
    let first = exprs.iter().find_map(|e| match &e.kind {
        ExprKind::Assign { target, value } => match (&target.kind, &value.kind) {
            (ExprKind::Var(name), ExprKind::Function(def)) => {
                Some((name.clone(), def.params.len()))
            }
            _ => None,
        },
        _ => None,
    });
    let Some((entry, arity)) = first else { return };
    for args in signatures(arity, 1) {
        check_output("r_frontend", r::compile(src, &entry, args));
    }
}

/// The MATLAB front end: source to VRIR for the file's first function.
pub fn matlab_frontend(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(funcs) = matlab::parser::parse_file(src) else {
        return;
    };
    let Some(f) = funcs.first() else { return };
    // MATLAB arrays have two dimensions at least: a row vector is 1-by-n.
    for args in signatures(f.params.len(), 2) {
        check_output("matlab_frontend", matlab::compile(src, &f.name, args));
    }
}

/// The Julia front end: source to VRIR for the file's first function.
pub fn julia_frontend(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(source) = julia::parser::parse_source(src) else {
        return;
    };
    let Some(f) = source.functions.first() else {
        return;
    };
    for args in signatures(f.def.params.len(), 1) {
        check_output("julia_frontend", julia::compile(src, &f.name, args));
    }
}

/// The two fixed signatures for a function of `arity` parameters: double scalars, and
/// double arrays of rank `rank` (the language's vector).
fn signatures(arity: usize, rank: u32) -> [Vec<Ty>; 2] {
    let n = arity.min(MAX_ARGS);
    [
        vec![Ty::scalar(ScalarType::F64); n],
        vec![Ty::array(ScalarType::F64, rank); n],
    ]
}

/// A module a front end produced must verify.
fn check_output(target: &str, compiled: crate::VrResult<Module>) {
    if let Ok(m) = compiled {
        if let Err(e) = verify::verify_module(&m) {
            panic!(
                "{target}: the front end produced a module the verifier rejects: {e}\n{}",
                text::print_module(&m)
            );
        }
    }
}
