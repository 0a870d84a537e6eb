//! Running MATLAB functions in Octave and compiled, and comparing: the harness of the
//! MATLAB front end's tests (frontend_matlab_semantics.rs, frontend_matlab_docs.rs).
//! Octave runs a script that defines the functions (a script file starts with `1;`) and
//! prints each result as `CASE id output OK class ndims dims... values...` (`%.17g`,
//! column-major; complex as `re,im`), or `CASE id 0 ERROR message`.

#![allow(dead_code)]

use serde_json::Value as Json;
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::matlab;
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::ErrorKind;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Expect {
    /// Equal to Octave's result (class, dims, values; floats exact).
    Same,
    /// Equal within this relative tolerance.
    Near(f64),
    /// Octave raises an error; compiled code must raise one (not `unsupported`).
    Error,
    /// Octave raises an error; compiled code raises one whose message contains Octave's.
    SameError,
    /// Octave answers; compiled code must raise `unsupported` (the adapter then runs the
    /// function in Octave).
    Fallback,
}

pub struct Case {
    pub func: &'static str,
    /// How many outputs the call asks for.
    pub nout: usize,
    pub args: Json,
    pub expect: Expect,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `exact`: the values of an integer class as integers (a double cannot hold every
    /// int64).
    Value { class: String, dims: Vec<usize>, values: Vec<(f64, f64)>, exact: Vec<i64> },
    Error(String),
}

/// An Octave expression for a JSON argument (nested lists: outer list = rows).
pub fn octave_literal(j: &Json) -> String {
    fn num(v: &Json) -> String {
        match v {
            Json::Bool(b) => if *b { "true" } else { "false" }.into(),
            Json::String(s) => match s.as_str() {
                "nan" => "NaN".into(),
                "inf" => "Inf".into(),
                _ => "-Inf".into(),
            },
            Json::Object(o) => format!("complex({}, {})", num(&o["re"]), num(&o["im"])),
            Json::Number(n) => format!("{:?}", n.as_f64().unwrap()),
            other => panic!("no Octave literal for {other:?}"),
        }
    }
    fn matrix(data: &Json) -> String {
        match data {
            Json::Array(rows) if rows.iter().all(|r| r.is_array()) => {
                format!("[{}]", rows.iter().map(|r| r.as_array().unwrap().iter().map(num).collect::<Vec<_>>().join(", ")).collect::<Vec<_>>().join("; "))
            }
            Json::Array(items) => format!("[{}]", items.iter().map(num).collect::<Vec<_>>().join(", ")),
            other => num(other),
        }
    }
    match j {
        Json::Object(o) if o.contains_key("data") => {
            let dtype = o.get("dtype").and_then(|d| d.as_str()).unwrap_or("f64");
            let data = &o["data"];
            let inner = match o.get("shape") {
                Some(Json::Array(s)) if data.as_array().is_some_and(|d| d.is_empty()) => {
                    format!("zeros({})", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
                }
                _ => matrix(data),
            };
            match dtype {
                "i32" => format!("int32({inner})"),
                // Octave reads a literal as a double: an int64 argument must be one exactly.
                "i64" => {
                    let exact = |v: &Json| v.as_i64().is_some_and(|n| n.unsigned_abs() <= 1 << 53);
                    assert!(data.as_array().map_or(exact(data), |d| d.iter().flat_map(|r| r.as_array().cloned().unwrap_or_else(|| vec![r.clone()])).all(|v| exact(&v))), "int64 arguments beyond 2^53 have no exact Octave literal: {data}");
                    format!("int64({inner})")
                }
                "bool" => format!("logical({inner})"),
                _ => inner,
            }
        }
        other => matrix(other),
    }
}

/// Octave's results: per case, one outcome per output.
pub fn run_octave(source: &str, cases: &[Case]) -> Vec<Vec<Outcome>> {
    // The GPU markers do nothing in Octave (the package defines them so).
    let mut script = String::from("1;\nfunction gpu_begin()\nend\nfunction gpu_end()\nend\n");
    script.push_str(source);
    script.push_str(
        r#"
function vr_emit(id, k, r)
  if iscomplex(r)
    cls = ['complex ' class(r)];
  else
    cls = class(r);
  end
  d = size(r);
  printf('CASE %d %d OK %s %d', id, k, cls, numel(d));
  printf(' %d', d);
  v = r(:);
  for q = 1:numel(v)
    if iscomplex(v)
      printf(' %.17g,%.17g', real(v(q)), imag(v(q)));
    elseif isinteger(v)
      printf(' %d', v(q));
    else
      printf(' %.17g', double(v(q)));
    end
  end
  printf('\n');
end
function vr_run(id, nout, f, args)
  try
    out = cell(1, nout);
    [out{1:nout}] = f(args{:});
    for k = 1:nout
      vr_emit(id, k, out{k});
    end
  catch err
    printf('CASE %d 0 ERROR %s\n', id, strrep(err.message, "\n", " "));
  end
end
"#,
    );
    for (id, c) in cases.iter().enumerate() {
        let args: Vec<String> = c.args.as_array().unwrap().iter().map(octave_literal).collect();
        script.push_str(&format!("vr_run({id}, {}, @{}, {{{}}});\n", c.nout, c.func, args.join(", ")));
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_matlab_{}_{}.m", std::process::id(), cases.len()));
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("octave-cli").arg("--no-history").arg("--no-init-file").arg("--quiet").arg(&path).output().expect("octave-cli runs (Octave is part of the test setup)");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "octave-cli failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let mut results: HashMap<usize, Vec<Outcome>> = HashMap::new();
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        if w.next() != Some("CASE") {
            continue;
        }
        let id: usize = w.next().unwrap().parse().unwrap();
        let _k: usize = w.next().unwrap().parse().unwrap();
        let outcome = match w.next().unwrap() {
            "ERROR" => Outcome::Error(w.collect::<Vec<_>>().join(" ")),
            _ => {
                let mut class = w.next().unwrap().to_string();
                if class == "complex" {
                    class = format!("complex {}", w.next().unwrap());
                }
                let nd: usize = w.next().unwrap().parse().unwrap();
                let dims: Vec<usize> = (0..nd).map(|_| w.next().unwrap().parse().unwrap()).collect();
                let words: Vec<&str> = w.collect();
                let exact = if class.starts_with("int") || class.starts_with("uint") { words.iter().map(|s| s.parse().unwrap()).collect() } else { Vec::new() };
                let values = words
                    .iter()
                    .map(|s| match s.split_once(',') {
                        Some((a, b)) => (parse(a), parse(b)),
                        None => (parse(s), 0.0),
                    })
                    .collect();
                Outcome::Value { class, dims, values, exact }
            }
        };
        results.entry(id).or_default().push(outcome);
    }
    (0..cases.len()).map(|i| results.remove(&i).unwrap_or_else(|| panic!("Octave printed no result for case {i}:\n{stdout}"))).collect()
}

fn parse(s: &str) -> f64 {
    match s {
        "NaN" | "-NaN" => f64::NAN,
        "Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        s => s.parse().unwrap(),
    }
}

fn pair(s: &Scalar) -> (f64, f64) {
    match s {
        Scalar::C128(c) => (c.re, c.im),
        Scalar::C64(c) => (c.re as f64, c.im as f64),
        Scalar::Bool(b) => (*b as i32 as f64, 0.0),
        other => (other.as_f64().unwrap(), 0.0),
    }
}

/// An integer element exactly.
fn integer(s: &Scalar) -> Option<i64> {
    match s {
        Scalar::I32(v) => Some(*v as i64),
        Scalar::I64(v) => Some(*v),
        _ => None,
    }
}

fn class_of(e: velociraptor::vrir::ScalarType) -> &'static str {
    use velociraptor::vrir::ScalarType::*;
    match e {
        Bool => "logical",
        I32 => "int32",
        I64 => "int64",
        F32 => "single",
        F64 => "double",
        C64 => "complex single",
        C128 => "complex double",
    }
}

/// Our result as Octave prints it: dims at least 2, trailing singletons past the second
/// dropped, column-major values.
pub fn ours(v: &Value) -> Outcome {
    match v {
        Value::Scalar(s) => Outcome::Value { class: class_of(s.ty()).into(), dims: vec![1, 1], values: vec![pair(s)], exact: integer(s).into_iter().collect() },
        Value::Array(a) => {
            let n = a.len();
            let mut values = Vec::with_capacity(n);
            let mut exact = Vec::new();
            for k in 0..n {
                let mut rem = k;
                let idx: Vec<usize> = a
                    .dims
                    .iter()
                    .map(|e| {
                        let i = rem % e;
                        rem /= e;
                        i
                    })
                    .collect();
                let x = a.get(&idx);
                exact.extend(integer(&x));
                values.push(pair(&x));
            }
            let mut dims = a.dims.clone();
            while dims.len() > 2 && dims.last() == Some(&1) {
                dims.pop();
            }
            while dims.len() < 2 {
                dims.push(1);
            }
            Outcome::Value { class: class_of(a.ty.elem).into(), dims, values, exact }
        }
        other => Outcome::Error(format!("unexpected value {other:?}")),
    }
}

fn same_float(a: f64, b: f64, tol: Option<f64>) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    match tol {
        None => a.to_bits() == b.to_bits(),
        Some(t) => a == b || (a - b).abs() <= t * a.abs().max(b.abs()),
    }
}

/// Equal as Octave would see them: a complex result whose imaginary parts are all zero
/// is the real array Octave narrows it to (the adapter narrows it the same way).
pub fn agree(octave: &Outcome, us: &Outcome, tol: Option<f64>) -> bool {
    match (octave, us) {
        (Outcome::Value { class: c1, dims: d1, values: v1, exact: e1 }, Outcome::Value { class: c2, dims: d2, values: v2, exact: e2 }) => {
            if !e1.is_empty() || !e2.is_empty() {
                return c1 == c2 && d1 == d2 && e1 == e2;
            }
            let narrowed = c2.starts_with("complex ") && v2.iter().all(|x| x.1 == 0.0) && !c1.starts_with("complex ");
            let class_ok = c1 == c2 || (narrowed && c2.strip_prefix("complex ") == Some(c1.as_str()));
            class_ok && d1 == d2 && v1.len() == v2.len() && v1.iter().zip(v2).all(|(a, b)| same_float(a.0, b.0, tol) && (narrowed || same_float(a.1, b.1, tol)))
        }
        _ => false,
    }
}

pub struct Report {
    pub failures: Vec<String>,
    pub passed_interp: usize,
    pub summary: String,
}

/// Run every case in Octave and compiled on every backend; compare.
pub fn check(source: &str, cases: &[Case]) -> Report {
    let expected = run_octave(source, cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<Backend, usize> = HashMap::new();
    let mut skipped: HashMap<Backend, Vec<String>> = HashMap::new();
    for (id, (c, oct)) in cases.iter().zip(&expected).enumerate() {
        let label = format!("case {id}: {}({}) for {} output(s)", c.func, c.args.as_array().unwrap().iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", "), c.nout);
        let arg_types: Vec<_> = match c.args.as_array().unwrap().iter().map(matlab::json_arg_type).collect() {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{label}: bad arguments: {e}"));
                continue;
            }
        };
        // The results' MATLAB classes: int8 ... uint32 values come in their storage types
        // (i32, i64), which `ours` would name int32 and int64.
        let compiled = matlab::compile_classes(source, c.func, arg_types, Some(c.nout)).and_then(|(m, k)| Ok((m, k, matlab::json_values(c.args.as_array().unwrap())?)));
        let (module, classes, values) = match compiled {
            Ok(x) => x,
            Err(e) if c.expect == Expect::Fallback && e.kind == ErrorKind::Unsupported => {
                for b in Backend::available() {
                    *passed.entry(b).or_default() += 1;
                }
                continue;
            }
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        let entry = module.name.clone();
        for b in Backend::available() {
            let got = backend::execute(b, &module, &entry, values.clone());
            let got: Result<Vec<Outcome>, velociraptor::VrError> = match got {
                Err(e) if e.kind == ErrorKind::Unsupported => {
                    skipped.entry(b).or_default().push(format!("{label}: {e}"));
                    continue;
                }
                Err(e) => Err(matlab::explain_error_in(&module, e)),
                Ok(v) => Ok(v
                    .iter()
                    .zip(classes.iter().map(Some).chain(std::iter::repeat(None)))
                    .map(|(v, k)| match (ours(v), k) {
                        (Outcome::Value { dims, values, exact, .. }, Some(k)) if k.starts_with("int") || k.starts_with("uint") => Outcome::Value { class: k.clone(), dims, values, exact },
                        (o, _) => o,
                    })
                    .collect()),
            };
            let first_error = oct.iter().find_map(|o| match o {
                Outcome::Error(m) => Some(m.clone()),
                _ => None,
            });
            let ok = match (c.expect, &got, &first_error) {
                (Expect::Fallback, Err(e), _) => e.kind == ErrorKind::Unsupported,
                (Expect::Fallback, Ok(_), _) => false,
                (Expect::Error, Err(e), Some(_)) => e.kind != ErrorKind::Unsupported,
                (Expect::SameError, Err(e), Some(m)) => e.kind != ErrorKind::Unsupported && e.message.contains(m.as_str()),
                (Expect::Error | Expect::SameError, _, _) => false,
                (_, _, Some(_)) => false,
                (Expect::Same | Expect::Near(_), Ok(us), None) => {
                    let tol = if let Expect::Near(t) = c.expect { Some(t) } else { None };
                    us.len() == oct.len() && oct.iter().zip(us).all(|(o, u)| agree(o, u, tol))
                }
                (Expect::Same | Expect::Near(_), Err(_), None) => false,
            };
            if ok {
                *passed.entry(b).or_default() += 1;
            } else {
                failures.push(format!("{label} on {b}: Octave gave {oct:?}, compiled code gave {got:?}"));
            }
        }
    }
    let mut summary = String::new();
    for b in Backend::available() {
        let s = skipped.get(&b).map_or(0, |v| v.len());
        summary.push_str(&format!("{b}: {} passed, {s} skipped (unsupported by the backend)\n", passed.get(&b).copied().unwrap_or(0)));
        for line in skipped.get(&b).into_iter().flatten() {
            summary.push_str(&format!("  SKIP {line}\n"));
        }
    }
    Report { failures, passed_interp: passed.get(&Backend::Interp).copied().unwrap_or(0), summary }
}
