//! The conformance runner: reads the directive comments of `tests/vrir/*.vrir` files
//! (`; run:`, `; error:`, `; verify-error:`, `; parse-error:`; docs/vrir-text.md) and
//! checks each one on a backend. `vr test` and the cargo test `tests/conformance.rs`
//! both use it, so a case means the same thing everywhere.
//!
//! Every directive is one case. A failure names the file, the line of the directive,
//! and what was expected against what happened.

use crate::backend::{self, Backend};
use crate::runtime::error::ErrorKind;
use crate::runtime::value::{Scalar, Value};
use crate::vrir::ast::Module;
use crate::vrir::verify;
use serde_json::Value as Json;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a conformance file's expected values may come from: hand calculation or a host
/// language itself, never our interpreter alone.
pub const EXPECTED_SOURCES: [&str; 4] = ["hand", "numpy", "octave", "r"];

/// Relative tolerance of `~=`.
pub const REL_TOL: f64 = 1e-12;
/// Absolute tolerance of `~=` (for values at or near zero).
pub const ABS_TOL: f64 = 1e-300;

/// What one directive asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Directive {
    /// `; run: f(args) == results` (`approx` for `~=`).
    Run {
        call: Call,
        expected: Vec<String>,
        approx: bool,
    },
    /// `; error: f(args) => text`: the call fails with an error whose text contains this.
    Error { call: Call, substring: String },
    /// `; verify-error: text`: the module parses but fails verification.
    VerifyError { substring: String },
    /// `; parse-error: text`: the module does not parse.
    ParseError { substring: String },
}

/// A call as written in a directive: the function name and its JSON arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub func: String,
    pub args: Vec<String>,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.func, self.args.join(", "))
    }
}

/// A directive and the (1-based) line it is on.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub line: usize,
    pub directive: Directive,
}

/// What a conformance file asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spec {
    /// Where the expected values come from (`; expected: numpy`), if the file says.
    pub expected_from: Option<String>,
    /// `; only: interp`: the cases hold on these backends alone (others skip them), for
    /// behaviour the semantics leave undefined in compiled code.
    pub only: Option<Vec<String>>,
    /// `; seed: 42`: every run and error case starts the built-in random stream as R's
    /// `set.seed(42)` leaves it (for `random_*` draws).
    pub seed: Option<i32>,
    pub cases: Vec<Case>,
    /// Directive lines that could not be read: (line, message).
    pub malformed: Vec<(usize, String)>,
}

/// Read the directives of a conformance file.
pub fn parse_spec(src: &str) -> Spec {
    let mut spec = Spec::default();
    for (k, raw) in src.lines().enumerate() {
        let line = k + 1;
        let Some(comment) = raw.trim_start().strip_prefix(';') else {
            continue;
        };
        let comment = comment.trim_start_matches(';').trim();
        let Some((key, rest)) = comment.split_once(':') else {
            continue;
        };
        let rest = rest.trim();
        let directive = match key.trim() {
            "expected" => {
                spec.expected_from = Some(rest.to_string());
                continue;
            }
            "only" => {
                spec.only = Some(rest.split_whitespace().map(str::to_string).collect());
                continue;
            }
            "seed" => match rest.parse::<i32>() {
                Ok(n) => {
                    spec.seed = Some(n);
                    continue;
                }
                Err(_) => Err(format!("seed `{rest}` is not an i32")),
            },
            "run" => parse_run(rest),
            "error" => parse_error_directive(rest),
            "verify-error" => Ok(Directive::VerifyError {
                substring: rest.to_string(),
            }),
            "parse-error" => Ok(Directive::ParseError {
                substring: rest.to_string(),
            }),
            _ => continue,
        };
        match directive {
            Ok(directive) => spec.cases.push(Case { line, directive }),
            Err(msg) => spec.malformed.push((line, msg)),
        }
    }
    spec
}

fn parse_run(s: &str) -> Result<Directive, String> {
    let (call, rest) = parse_call(s)?;
    let (approx, expected) = if let Some(e) = rest.strip_prefix("==") {
        (false, e)
    } else if let Some(e) = rest.strip_prefix("~=") {
        (true, e)
    } else if rest.is_empty() {
        // A void function: nothing to compare.
        (false, "")
    } else {
        return Err(format!(
            "expected `==` or `~=` after `{call}`, found `{rest}`"
        ));
    };
    let expected = split_top_level(expected.trim())?;
    Ok(Directive::Run {
        call,
        expected,
        approx,
    })
}

fn parse_error_directive(s: &str) -> Result<Directive, String> {
    let (call, rest) = parse_call(s)?;
    let substring = rest
        .strip_prefix("=>")
        .ok_or_else(|| format!("expected `=> text` after `{call}`, found `{rest}`"))?;
    Ok(Directive::Error {
        call,
        substring: substring.trim().to_string(),
    })
}

/// `name(arg, ...)` followed by the rest of the line (trimmed).
fn parse_call(s: &str) -> Result<(Call, &str), String> {
    let open = s
        .find('(')
        .ok_or_else(|| format!("expected `name(arguments)`, found `{s}`"))?;
    let func = s[..open].trim();
    if func.is_empty() || func.contains(char::is_whitespace) {
        return Err(format!(
            "expected a function name before `(`, found `{}`",
            &s[..open]
        ));
    }
    let close =
        matching_paren(s, open).ok_or_else(|| format!("unbalanced parentheses in `{s}`"))?;
    let args = split_top_level(&s[open + 1..close])?;
    Ok((
        Call {
            func: func.to_string(),
            args,
        },
        s[close + 1..].trim(),
    ))
}

/// Tracks whether a scan of directive text is inside a JSON string, so that brackets
/// and commas in strings are not taken for structure.
#[derive(Default)]
struct JsonStrings {
    in_string: bool,
    escaped: bool,
}

impl JsonStrings {
    /// Feed the next character; true when it belongs to a string (quotes included).
    fn inside(&mut self, c: char) -> bool {
        if self.in_string {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                '"' => self.in_string = false,
                _ => {}
            }
            true
        } else if c == '"' {
            self.in_string = true;
            true
        } else {
            false
        }
    }
}

/// Index of the `)` closing the `(` at `open`, skipping JSON strings.
fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut strings = JsonStrings::default();
    for (i, c) in s.char_indices().skip_while(|(i, _)| *i < open) {
        if strings.inside(c) {
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return if c == ')' { Some(i) } else { None };
                }
            }
            _ => {}
        }
    }
    None
}

/// Split `s` at the commas that are outside brackets, braces, parentheses and JSON
/// strings; each piece trimmed. An empty (or blank) string gives no pieces.
pub fn split_top_level(s: &str) -> Result<Vec<String>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut pieces = Vec::new();
    let mut stack: Vec<char> = Vec::new();
    let mut strings = JsonStrings::default();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if strings.inside(c) {
            continue;
        }
        match c {
            '[' => stack.push(']'),
            '{' => stack.push('}'),
            '(' => stack.push(')'),
            ']' | '}' | ')' if stack.pop() != Some(c) => {
                return Err(format!("unbalanced `{c}` in `{s}`"))
            }
            ',' if stack.is_empty() => {
                pieces.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if strings.in_string {
        return Err(format!("unterminated string in `{s}`"));
    }
    if let Some(c) = stack.last() {
        return Err(format!("missing `{c}` in `{s}`"));
    }
    pieces.push(s[start..].trim().to_string());
    if pieces.iter().any(|p| p.is_empty()) {
        return Err(format!("empty item in `{s}`"));
    }
    Ok(pieces)
}

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    pub file: PathBuf,
    pub line: usize,
    /// The directive as written, e.g. `run dot([1.0], [2.0])`.
    pub label: String,
    pub outcome: Outcome,
}

/// What became of one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    /// What went wrong.
    Fail(String),
    /// Why the case does not apply to this backend (a construct it does not compile
    /// yet, or behaviour the semantics leave undefined there). Never counted as passed.
    Skip(String),
}

impl fmt::Display for CaseResult {
    /// `tests/vrir/dot.vrir:3: run dot([1.0], [2.0]): expected 2.0, got 3.0`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.label)?;
        match &self.outcome {
            Outcome::Pass => f.write_str(": ok"),
            Outcome::Fail(why) => write!(f, ": {why}"),
            Outcome::Skip(why) => write!(f, ": skipped: {why}"),
        }
    }
}

/// The outcomes of every case of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub backend: Option<Backend>,
    pub cases: Vec<CaseResult>,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.outcome == Outcome::Pass).count()
    }
    pub fn failed(&self) -> usize {
        self.failures().count()
    }
    pub fn skipped(&self) -> usize {
        self.skips().count()
    }
    pub fn failures(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases.iter().filter(|c| matches!(c.outcome, Outcome::Fail(_)))
    }
    pub fn skips(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases.iter().filter(|c| matches!(c.outcome, Outcome::Skip(_)))
    }
    /// `N passed, M failed`, with `, K skipped` when any were.
    pub fn summary(&self) -> String {
        let mut line = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.skipped() > 0 {
            line.push_str(&format!(", {} skipped", self.skipped()));
        }
        line
    }
}

/// Run every conformance file under `paths` (files, or directories searched
/// recursively for `*.vrir`, in name order) on `backend`.
pub fn run_paths(paths: &[PathBuf], backend: Backend) -> Report {
    run_paths_with(paths, backend, RunOptions::default())
}

/// How the cases of a run are executed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Wrap every function body in one GPU section before running (`vr test
    /// --wrap-gpu`): on the `gpu` backend, all of a program's parfors and copies become
    /// GPU tasks and everything else synchronises with them.
    pub wrap_gpu: bool,
}

thread_local! {
    static OPTIONS: std::cell::Cell<RunOptions> = const { std::cell::Cell::new(RunOptions { wrap_gpu: false }) };
}

/// [`run_paths`] with `options`.
pub fn run_paths_with(paths: &[PathBuf], backend: Backend, options: RunOptions) -> Report {
    let saved = OPTIONS.with(|o| o.replace(options));
    let report = run_paths_inner(paths, backend);
    OPTIONS.with(|o| o.set(saved));
    report
}

/// [`run_source`] with `options`.
pub fn run_source_with(path: &Path, src: &str, backend: Backend, options: RunOptions) -> Vec<CaseResult> {
    let saved = OPTIONS.with(|o| o.replace(options));
    let results = run_source(path, src, backend);
    OPTIONS.with(|o| o.set(saved));
    results
}

fn run_paths_inner(paths: &[PathBuf], backend: Backend) -> Report {
    let mut report = Report {
        backend: Some(backend),
        cases: Vec::new(),
    };
    for path in paths {
        let mut files = Vec::new();
        if let Err(e) = collect_files(path, &mut files) {
            report
                .cases
                .push(file_failure(path, format!("cannot read: {e}")));
            continue;
        }
        if files.is_empty() && path.is_dir() {
            report.cases.push(file_failure(
                path,
                "no .vrir files in this directory".into(),
            ));
        }
        for file in files {
            report.cases.extend(run_file(&file, backend));
        }
    }
    report
}

fn collect_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        // Reading it reports a missing file; a named file need not end in .vrir.
        std::fs::metadata(path)?;
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_files(&entry, out)?;
        } else if entry.extension().is_some_and(|x| x == "vrir") {
            out.push(entry);
        }
    }
    Ok(())
}

fn file_failure(path: &Path, why: String) -> CaseResult {
    CaseResult {
        file: path.to_path_buf(),
        line: 1,
        label: "file".into(),
        outcome: Outcome::Fail(why),
    }
}

/// Run the cases of one file.
pub fn run_file(path: &Path, backend: Backend) -> Vec<CaseResult> {
    match std::fs::read_to_string(path) {
        Ok(src) => run_source(path, &src, backend),
        Err(e) => vec![file_failure(path, format!("cannot read: {e}"))],
    }
}

/// Run the cases of a conformance file's text; `path` only names it in the results.
pub fn run_source(path: &Path, src: &str, backend: Backend) -> Vec<CaseResult> {
    let spec = parse_spec(src);
    let mut results: Vec<CaseResult> = spec
        .malformed
        .iter()
        .map(|(line, msg)| CaseResult {
            file: path.to_path_buf(),
            line: *line,
            label: "directive".into(),
            outcome: Outcome::Fail(format!("cannot read directive: {msg}")),
        })
        .collect();
    if spec.cases.is_empty() {
        if results.is_empty() {
            results.push(file_failure(path, "no run lines (expected `; run:`, `; error:`, `; verify-error:` or `; parse-error:`)".into()));
        }
        return results;
    }
    // Expected values must come from somewhere other than our own interpreter.
    match spec.expected_from.as_deref() {
        Some(source) if EXPECTED_SOURCES.contains(&source) => {}
        other => results.push(file_failure(
            path,
            format!(
                "`; expected:` must say where the expected values come from (one of {}), got {other:?}",
                EXPECTED_SOURCES.join(", ")
            ),
        )),
    }
    // Parse and verify once; each case then looks at the stage it is about.
    let parsed = guard(|| backend::parse_source(src)).and_then(|r| r.map_err(|e| e.to_string()));
    let verified = parsed.as_ref().map_err(|e| e.clone()).and_then(|m| {
        guard(|| verify::verify_module(m)).and_then(|r| r.map_err(|e| e.to_string()))
    });
    let excluded = spec
        .only
        .as_ref()
        .filter(|only| !only.iter().any(|b| b == backend.name()))
        .map(|only| format!("the file's cases hold on {} only", only.join(", ")));
    for case in &spec.cases {
        let (label, failure) = match &case.directive {
            Directive::ParseError { substring } => {
                let failure = match &parsed {
                    Ok(_) => Some(format!(
                        "expected a parse error containing `{substring}`, but the module parsed"
                    )),
                    Err(e) => mismatch(substring, e, "parse error"),
                };
                ("parse-error".to_string(), failure)
            }
            Directive::VerifyError { substring } => {
                let failure = match (&parsed, &verified) {
                    (Err(e), _) => Some(format!("expected a verify error containing `{substring}`, but the module does not parse: {e}")),
                    (Ok(_), Ok(())) => Some(format!("expected a verify error containing `{substring}`, but the module verified")),
                    (Ok(_), Err(e)) => mismatch(substring, e, "verify error"),
                };
                ("verify-error".to_string(), failure)
            }
            Directive::Run {
                call,
                expected,
                approx,
            } => {
                let failure = match (&parsed, &verified) {
                    (Err(e), _) => Some(format!("module does not parse: {e}")),
                    (Ok(_), Err(e)) => Some(format!("module does not verify: {e}")),
                    (Ok(m), Ok(())) => {
                        check_run(m, call, expected, *approx, backend, spec.seed).err()
                    }
                };
                (format!("run {call}"), failure)
            }
            Directive::Error { call, substring } => {
                let failure = match (&parsed, &verified) {
                    (Err(e), _) => Some(format!("module does not parse: {e}")),
                    (Ok(_), Err(e)) => Some(format!("module does not verify: {e}")),
                    (Ok(m), Ok(())) => {
                        check_error(m, call, substring, backend, spec.seed).err()
                    }
                };
                (format!("error {call}"), failure)
            }
        };
        let outcome = match (failure, &excluded) {
            (_, Some(why)) if matches!(case.directive, Directive::Run { .. } | Directive::Error { .. }) => {
                Outcome::Skip(why.clone())
            }
            (None, _) => Outcome::Pass,
            (Some(why), _) if why.starts_with(UNSUPPORTED) => Outcome::Skip(why),
            (Some(why), _) => Outcome::Fail(why),
        };
        results.push(CaseResult {
            file: path.to_path_buf(),
            line: case.line,
            label,
            outcome,
        });
    }
    results
}

fn mismatch(substring: &str, got: &str, what: &str) -> Option<String> {
    if got.starts_with(PANICKED) {
        // A crash is never the error a case expects.
        Some(format!(
            "expected a {what} containing `{substring}`, but it {got}"
        ))
    } else if got.contains(substring) {
        None
    } else {
        Some(format!(
            "expected a {what} containing `{substring}`, got `{got}`"
        ))
    }
}

fn parse_json(text: &str) -> Result<Json, String> {
    serde_json::from_str(text).map_err(|e| format!("`{text}` is not JSON: {e}"))
}

/// Held while a seeded case runs: the built-in random stream is one per process, and
/// backends' suites may run on several test threads at once.
static SEEDED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Read the call's arguments and run it (from R's `set.seed(seed)` state, if given).
fn call(
    m: &Module,
    call: &Call,
    backend: Backend,
    seed: Option<i32>,
) -> Result<Result<Vec<Value>, String>, String> {
    let f = backend::lookup(m, &call.func).map_err(|e| e.to_string())?;
    let items = call
        .args
        .iter()
        .map(|a| parse_json(a))
        .collect::<Result<Vec<_>, _>>()?;
    let args =
        backend::args_from_json_items(f, &items).map_err(|e| format!("bad arguments: {e}"))?;
    let wrapped;
    let m = if OPTIONS.with(|o| o.get()).wrap_gpu {
        wrapped = crate::gpu::wrap_in_sections(m);
        &wrapped
    } else {
        m
    };
    let _seeded = seed.map(|n| {
        let held = SEEDED.lock().unwrap_or_else(|p| p.into_inner());
        crate::runtime::rng::set_seed(n);
        held
    });
    Ok(guard(|| backend::execute(backend, m, &call.func, args)).and_then(|r| {
        r.map_err(|e| match e.kind {
            // A compiled backend that cannot handle a construct yet says so at compile
            // time; the case is skipped (and counted), not passed.
            ErrorKind::Unsupported if backend != Backend::Interp => format!("{UNSUPPORTED}{e}"),
            _ => e.to_string(),
        })
    }))
}

/// Marks a message as "this backend does not compile this yet".
const UNSUPPORTED: &str = "unsupported here: ";

const PANICKED: &str = "panicked: ";

/// Run `f`, turning a panic into a message, so that one crashing case fails alone and
/// the rest of the suite still runs and reports.
fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        format!("{PANICKED}{msg}")
    })
}

fn check_run(
    m: &Module,
    c: &Call,
    expected: &[String],
    approx: bool,
    backend: Backend,
    seed: Option<i32>,
) -> Result<(), String> {
    let f = backend::lookup(m, &c.func).map_err(|e| e.to_string())?;
    // A void function may say `== null` or nothing.
    let expected: Vec<&String> = if f.results.is_empty() {
        expected.iter().filter(|e| *e != "null").collect()
    } else {
        expected.iter().collect()
    };
    if expected.len() != f.results.len() {
        return Err(format!(
            "`{}` has {} result(s) but the directive lists {}",
            f.name,
            f.results.len(),
            expected.len()
        ));
    }
    let want: Vec<Value> = expected
        .iter()
        .zip(&f.results)
        .map(|(text, ty)| {
            let j = parse_json(text)?;
            Value::from_json(&j, ty)
                .map_err(|e| format!("expected value `{text}` is not a {ty}: {}", e.message))
        })
        .collect::<Result<_, _>>()?;
    let got = call(m, c, backend, seed)?.map_err(|e| {
        if e.starts_with(UNSUPPORTED) {
            e
        } else {
            format!("expected {}, got error `{e}`", show(&want))
        }
    })?;
    let agree = got.len() == want.len()
        && got
            .iter()
            .zip(&want)
            .all(|(g, w)| if approx { close(g, w) } else { g.same(w) });
    if agree {
        Ok(())
    } else {
        Err(format!(
            "expected {}{}, got {}",
            if approx { "~" } else { "" },
            show(&want),
            show(&got)
        ))
    }
}

fn check_error(
    m: &Module,
    c: &Call,
    substring: &str,
    backend: Backend,
    seed: Option<i32>,
) -> Result<(), String> {
    match call(m, c, backend, seed)? {
        Ok(got) => Err(format!(
            "expected an error containing `{substring}`, got {}",
            show(&got)
        )),
        Err(e) if e.starts_with(UNSUPPORTED) => Err(e),
        Err(e) => mismatch(substring, &e, "run-time error").map_or(Ok(()), Err),
    }
}

fn show(values: &[Value]) -> String {
    let parts: Vec<String> = values.iter().map(|v| v.to_json().to_string()).collect();
    parts.join(", ")
}

/// `~=`: equal structure, floats within [`REL_TOL`] relative or [`ABS_TOL`] absolute
/// (NaN matches NaN, an infinity only itself), everything else exactly equal.
pub fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => close_scalar(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.ty.elem == y.ty.elem
                && x.dims == y.dims
                && x.elements()
                    .iter()
                    .zip(y.elements().iter())
                    .all(|(p, q)| close_scalar(p, q))
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q))
        }
        _ => a.same(b),
    }
}

fn close_scalar(a: &Scalar, b: &Scalar) -> bool {
    match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => close_f64(*x as f64, *y as f64),
        (Scalar::F64(x), Scalar::F64(y)) => close_f64(*x, *y),
        (Scalar::C64(x), Scalar::C64(y)) => {
            close_f64(x.re as f64, y.re as f64) && close_f64(x.im as f64, y.im as f64)
        }
        (Scalar::C128(x), Scalar::C128(y)) => close_f64(x.re, y.re) && close_f64(x.im, y.im),
        _ => a.same(b),
    }
}

fn close_f64(a: f64, b: f64) -> bool {
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    (a - b).abs() <= (REL_TOL * a.abs().max(b.abs())).max(ABS_TOL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_top_level_commas_only() {
        assert_eq!(
            split_top_level(r#"1, [1.5, 2.0], {"re": 1, "im": 2}, "a,b""#).unwrap(),
            vec!["1", "[1.5, 2.0]", r#"{"re": 1, "im": 2}"#, r#""a,b""#]
        );
        assert_eq!(split_top_level("  ").unwrap(), Vec::<String>::new());
        assert_eq!(
            split_top_level(r#""a\"," , 2"#).unwrap(),
            vec![r#""a\",""#, "2"]
        );
        assert!(split_top_level("[1, 2")
            .unwrap_err()
            .contains("missing `]`"));
        assert!(split_top_level("1]").unwrap_err().contains("unbalanced"));
        assert!(split_top_level("1,,2").unwrap_err().contains("empty item"));
    }

    #[test]
    fn reads_every_kind_of_directive_with_its_line() {
        let spec = parse_spec(
            "; expected: numpy\n(module m :index-base 0)\n; run: dot([1.0, 2.0], [3.0, 4.0]) == 11.0\n\
             ;; run: f(2) ~= 1, [1.5, 2.0]\n; error: f([1.0], 3) => index out of bounds\n\
             ; verify-error: cannot assign\n; parse-error: unexpected\n; just a comment: with a colon\n\
             ; run: g(\n",
        );
        assert_eq!(spec.expected_from.as_deref(), Some("numpy"));
        let lines: Vec<usize> = spec.cases.iter().map(|c| c.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 6, 7]);
        assert_eq!(
            spec.cases[0].directive,
            Directive::Run {
                call: Call {
                    func: "dot".into(),
                    args: vec!["[1.0, 2.0]".into(), "[3.0, 4.0]".into()]
                },
                expected: vec!["11.0".into()],
                approx: false,
            }
        );
        assert_eq!(
            spec.cases[1].directive,
            Directive::Run {
                call: Call {
                    func: "f".into(),
                    args: vec!["2".into()]
                },
                expected: vec!["1".into(), "[1.5, 2.0]".into()],
                approx: true,
            }
        );
        assert_eq!(
            spec.cases[2].directive,
            Directive::Error {
                call: Call {
                    func: "f".into(),
                    args: vec!["[1.0]".into(), "3".into()]
                },
                substring: "index out of bounds".into(),
            }
        );
        assert_eq!(
            spec.malformed,
            vec![(9, "unbalanced parentheses in `g(`".to_string())]
        );
    }

    #[test]
    fn tolerance_is_relative_with_a_tiny_absolute_floor() {
        assert!(close_f64(1.0, 1.0 + 1e-13));
        assert!(!close_f64(1.0, 1.0 + 1e-11));
        assert!(close_f64(1e200, 1e200 * (1.0 + 5e-13)));
        assert!(close_f64(0.0, 1e-301));
        assert!(!close_f64(0.0, 1e-299));
        assert!(close_f64(f64::NAN, f64::NAN));
        assert!(close_f64(f64::INFINITY, f64::INFINITY));
        assert!(!close_f64(f64::INFINITY, f64::NEG_INFINITY));
        assert!(!close_f64(f64::INFINITY, 1e308));
    }

    #[test]
    fn a_file_without_directives_fails() {
        let r = run_source(
            Path::new("x.vrir"),
            "(module m :index-base 0)\n; a comment\n",
            Backend::Interp,
        );
        assert_eq!(r.len(), 1);
        assert!(
            failure(&r[0]).starts_with("no run lines"),
            "{r:?}"
        );
        assert_eq!(
            r[0].to_string(),
            format!("x.vrir:1: file: {}", failure(&r[0]))
        );
    }

    #[test]
    fn a_panic_fails_its_case_only_and_never_matches_an_expected_error() {
        let r = guard(|| -> u32 { panic!("boom at index 3") });
        assert_eq!(r, Err("panicked: boom at index 3".to_string()));
        assert_eq!(
            mismatch("index", "panicked: boom at index 3", "run-time error").as_deref(),
            Some("expected a run-time error containing `index`, but it panicked: boom at index 3")
        );
        assert_eq!(
            mismatch("index", "index out of bounds in f: ...", "run-time error"),
            None
        );
    }

    #[test]
    fn a_file_must_say_where_its_expected_values_come_from() {
        let body = "; run: f(2) == 2\n(module m :index-base 0 (function f ((x i64)) (i64) (locals) (return x)))\n";
        let r = run_source(Path::new("e.vrir"), body, Backend::Interp);
        assert_eq!(r.len(), 2, "{r:?}");
        assert!(failure(&r[0]).starts_with("`; expected:` must say"), "{r:?}");
        assert_eq!(r[1].outcome, Outcome::Pass);
        let r = run_source(Path::new("e.vrir"), &format!("; expected: interp\n{body}"), Backend::Interp);
        assert!(failure(&r[0]).ends_with("got Some(\"interp\")"), "{r:?}");
        let r = run_source(Path::new("e.vrir"), &format!("; expected: numpy\n{body}"), Backend::Interp);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].outcome, Outcome::Pass);
    }

    #[test]
    fn parse_error_cases_check_the_message() {
        let src = "; expected: hand\n; parse-error: unexpected\n(module m :index-base 0) )\n";
        let r = run_source(Path::new("p.vrir"), src, Backend::Interp);
        assert_eq!(r[0].outcome, Outcome::Pass, "{r:?}");
        let src = "; expected: hand\n; parse-error: no such words\n(module m :index-base 0) )\n";
        let r = run_source(Path::new("p.vrir"), src, Backend::Interp);
        assert!(
            failure(&r[0]).starts_with(
                "expected a parse error containing `no such words`, got `parse error: line 3"
            ),
            "{r:?}"
        );
        let src = "; expected: hand\n; parse-error: x\n(module m :index-base 0)\n";
        let r = run_source(Path::new("p.vrir"), src, Backend::Interp);
        assert_eq!(
            failure(&r[0]),
            "expected a parse error containing `x`, but the module parsed"
        );
    }

    fn failure(r: &CaseResult) -> &str {
        match &r.outcome {
            Outcome::Fail(why) => why,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn only_restricts_run_cases_to_the_named_backends() {
        let src = "; expected: hand\n; only: interp\n; error: f(1) => out of bounds\n(module m :index-base 0 (function f ((x i64)) (i64) (locals) (return x)))\n";
        let spec = parse_spec(src);
        assert_eq!(spec.only, Some(vec!["interp".to_string()]));
        let r = run_source(Path::new("o.vrir"), src, Backend::Cpu);
        assert_eq!(r[0].outcome, Outcome::Skip("the file's cases hold on interp only".into()));
        let r = run_source(Path::new("o.vrir"), src, Backend::Interp);
        assert!(matches!(r[0].outcome, Outcome::Fail(_)), "{r:?}");
    }
}
