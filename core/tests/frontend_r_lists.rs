//! Lists, data frames and globals against R itself: every function of
//! tests/frontend_r/lists.R runs in R (Rscript, during this test) and, compiled by the
//! front end, on every backend this build has (interp, cpu, cpu-par); results must be
//! equal (floats bit for bit). List arguments are JSON `{"list": [["name", value], ...]}`
//! (`"frame": true` for a data frame; `{"opaque": ..., "r": "R literal"}` for a value
//! compiled code cannot read); globals are set in R's global environment before the
//! call and passed as the signature's globals. What stays unsupported is checked in
//! `unsupported_list_constructs_name_the_construct`.

#![allow(clippy::result_large_err)] // VrError is 128 bytes by design

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::process::Command;
use velociraptor::backend::{self, Backend};
use velociraptor::frontend::r;
use velociraptor::frontend::signature::Signature;
use velociraptor::frontend::types::{AnyTy, ListTy, Ty};
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::vrir::ScalarType;
use velociraptor::ErrorKind;

const SOURCE: &str = include_str!("frontend_r/lists.R");

struct Case {
    func: &'static str,
    args: Json,
    /// Globals: name and JSON value, set in R before the call.
    globals: Vec<(&'static str, Json)>,
    /// R answers, but compiled code must raise (kind unsupported: the R adapter then
    /// runs the function in R).
    raises: bool,
}

fn i32s(v: i32) -> Json {
    json!({"dtype": "i32", "data": v})
}

fn list(items: Json) -> Json {
    json!({ "list": items })
}

fn cases() -> Vec<Case> {
    let c = |func, args: Json| Case { func, args, globals: vec![], raises: false };
    let g = |func, args: Json, globals: Vec<(&'static str, Json)>| Case { func, args, globals, raises: false };
    let raises = |func, args: Json| Case { func, args, globals: vec![], raises: true };
    let bench_data = list(json!([
        ["x", [1.0, 2.0, 3.0, 4.5]],
        ["w", 0.5],
        ["m", {"dtype": "f64", "shape": [2, 3], "data": [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]}],
        ["n", i32s(4)]
    ]));
    let frame = json!({"frame": true, "list": [
        ["x", [1.5, 2.0, -3.0, 4.0]],
        ["n", {"dtype": "i32", "shape": [4], "data": [1, 2, 3, 4]}],
        ["keep", {"dtype": "bool", "shape": [4], "data": [true, false, true, true]}],
        ["label", {"opaque": "a character vector", "r": "c(\"a\", \"b\", \"c\", \"d\")"}]
    ]});
    let body = |x: f64, y: f64, vx: f64, mass: f64| list(json!([["x", x], ["y", y], ["vx", vx], ["mass", mass]]));
    let bodies = list(json!([["a", body(1.0, 2.0, 0.5, 10.0)], ["b", body(-3.5, 0.25, 1.0, 2.0)], ["c", body(4.0, -1.0, -2.0, 0.5)]]));
    vec![
        c("run", json!([bench_data])),
        c(
            "pick",
            json!([list(json!([
                [null, [1.0, 2.0]],
                ["b", 7.0],
                ["inner", list(json!([["k", i32s(5)], ["z", [0.5, 0.25]]]))]
            ]))]),
        ),
        c("frame_stats", json!([frame])),
        c("local_list", json!([[1.0, 2.0, 3.0]])),
        c("widen_elem", json!([1.0])),
        c("widen_elem", json!([2.0])),
        c("swap", json!([1.5, 2.5])),
        c("keeps_list", json!([list(json!([["x", [1.0, 2.0, 3.0]]]))])),
        c(
            "nested",
            json!([list(json!([
                ["a", list(json!([["v", [1.0, 2.0]], ["scale", 3.0]]))],
                ["b", list(json!([["v", {"dtype": "i32", "shape": [3], "data": [1, 2, 3]}], ["scale", 0.5]]))]
            ]))]),
        ),
        g("scale_by_k", json!([[1.0, 2.0]]), vec![("K", json!(3.0))]),
        g("scale_by_k", json!([[1.0, 2.0]]), vec![("K", json!(-0.25))]),
        g("scale_by_k", json!([2.0]), vec![("K", json!([1.0, 10.0, 100.0]))]),
        g(
            "use_globals",
            json!([[1.0, 2.0]]),
            vec![
                ("V", json!([10.0, 20.0])),
                ("M", json!({"dtype": "f64", "shape": [2, 2], "data": [[1.0, 2.0], [3.0, 4.0]]})),
                ("G", list(json!([["a", 0.5], ["s", {"opaque": "a character vector", "r": "\"unused\""}]]))),
                ("K", json!(4.0)),
            ],
        ),
        g("int_global", json!([i32s(3)]), vec![("KI", i32s(39))]),
        c("sum_elements", json!([list(json!([["x", [1.0, 2.0]], ["y", [3.0, 4.0, 5.5]], ["z", {"dtype": "i32", "shape": [2], "data": [1, 2]}]]))])),
        c("element_at", json!([list(json!([[null, [1.0, 2.0]], [null, [3.0, 4.0, 5.5]]])), i32s(2)])),
        c("element_at", json!([list(json!([[null, [1.0, 2.0]], [null, [3.0, 4.0, 5.5]]])), 1.0])),
        // R: "subscript out of bounds"; compiled code raises the same.
        c("element_at", json!([list(json!([[null, [1.0, 2.0]], [null, [3.0, 4.0, 5.5]]])), i32s(3)])),
        c("stats_list", json!([[1.0, 2.5, 4.0]])),
        c("from_helper", json!([[1.0, 2.5, 4.0]])),
        c("branches", json!([2.0])),
        c("branches", json!([-3.0])),
        c("unnamed", json!([[1.0, 2.0]])),
        c("result_var", json!([[1.0, 2.0, 3.0, 4.0]])),
        c("setup", json!([i32s(3)])),
        c("setup_then_run", json!([i32s(5)])),
        c("set_at", json!([2.0, [9.0, 9.5]])),
        c("set_at", json!([i32s(3), [0.5, 1.0]])),
        raises("set_at", json!([4.0, [0.5, 1.0]])),
        c("loop_over", json!([list(json!([["a", [1.0, 2.0]], ["b", [3.0, 4.0, 5.5]], ["c", {"dtype": "i32", "shape": [2], "data": [7, 8]}]]))])),
        c("records_by_name", json!([bodies.clone()])),
        c("records_by_element", json!([bodies.clone(), 100.0])),
        c("records_by_element", json!([bodies.clone(), 1.0])),
        c("records_at", json!([bodies.clone(), i32s(3)])),
        c("record_field_at", json!([bodies.clone(), 2.0])),
        c("record_field_at", json!([bodies.clone(), i32s(3)])),
        // R: "subscript out of bounds"; compiled code raises the same.
        c("record_field_at", json!([bodies.clone(), i32s(4)])),
        c("names_mixed", json!([list(json!([["a", [1.0, 2.0]], ["b", 3.0], ["m", {"dtype": "f64", "shape": [2, 2], "data": [[1.0, 2.0], [3.0, 4.0]]}], ["k", {"dtype": "i32", "shape": [2], "data": [7, 8]}]]))])),
        c("frame_columns", json!([{"frame": true, "list": [["x", [1.5, 2.0, -3.0]], ["n", {"dtype": "i32", "shape": [3], "data": [1, 2, 3]}]]}])),
        c("closure_reads_list", json!([list(json!([["x", [1.0, 2.0, 4.0]], ["w", 0.5]]))])),
        c("checked", json!([list(json!([["n", 3.0]]))])),
        // R: "data$n > 0 is not TRUE"; compiled code raises the same.
        c("checked", json!([list(json!([["n", -1.0]]))])),
        c("frame_cells", json!([{"frame": true, "list": [["x", [1.5, 2.0, -3.0, 4.0]], ["n", {"dtype": "i32", "shape": [4], "data": [1, 2, 3, 4]}], ["label", {"opaque": "a character vector", "r": "c(\"a\", \"b\", \"c\", \"d\")"}]]}])),
        c("loop_literal", json!([[1.0, 2.0], [3.0, 4.5]])),
    ]
}

/// An R expression for a JSON argument (arrays: column-major data with `dim`).
fn r_literal(j: &Json) -> String {
    fn num(v: &Json, dtype: &str) -> String {
        match (v, dtype) {
            (Json::Bool(b), _) => if *b { "TRUE" } else { "FALSE" }.into(),
            (Json::String(s), _) => match s.as_str() {
                "nan" => "NaN".into(),
                "inf" => "Inf".into(),
                _ => "-Inf".into(),
            },
            (Json::Number(n), "i32") => format!("{}L", n.as_i64().unwrap()),
            (Json::Number(n), _) => format!("{:?}", n.as_f64().unwrap()),
            other => panic!("no R literal for {other:?}"),
        }
    }
    fn flatten(j: &Json, out: &mut Vec<Json>, dims: &mut Vec<usize>, depth: usize) {
        match j {
            Json::Array(items) => {
                if dims.len() <= depth {
                    dims.push(items.len());
                }
                for i in items {
                    flatten(i, out, dims, depth + 1);
                }
            }
            other => out.push(other.clone()),
        }
    }
    if let Json::Object(o) = j {
        if let Some(Json::Array(items)) = o.get("list") {
            let parts: Vec<String> = items
                .iter()
                .map(|it| match &it[0] {
                    Json::String(n) => format!("{n} = {}", r_literal(&it[1])),
                    _ => r_literal(&it[1]),
                })
                .collect();
            return if o.get("frame").and_then(|f| f.as_bool()).unwrap_or(false) {
                format!("data.frame({}, stringsAsFactors = FALSE)", parts.join(", "))
            } else {
                format!("list({})", parts.join(", "))
            };
        }
        if o.contains_key("opaque") {
            return o["r"].as_str().expect("an opaque test value carries its R literal").to_string();
        }
    }
    let (data, dtype, shape) = match j {
        Json::Object(o) if o.contains_key("data") => (&o["data"], o["dtype"].as_str().unwrap_or("f64"), o.get("shape")),
        Json::Array(_) => (j, "f64", None),
        other => return num(other, "f64"),
    };
    if !data.is_array() {
        return num(data, dtype);
    }
    let mut flat = Vec::new();
    let mut dims = Vec::new();
    flatten(data, &mut flat, &mut dims, 0);
    if let Some(Json::Array(s)) = shape {
        dims = s.iter().map(|d| d.as_u64().unwrap() as usize).collect();
    }
    // Row-major (first index outermost) to column-major.
    let n = flat.len();
    let mut col = Vec::with_capacity(n);
    for k in 0..n {
        let mut rem = k;
        let mut idx = vec![0; dims.len()];
        for (d, e) in dims.iter().enumerate() {
            idx[d] = rem % e;
            rem /= e;
        }
        let mut pos = 0;
        for (d, e) in dims.iter().enumerate() {
            pos = pos * e + idx[d];
        }
        col.push(num(&flat[pos], dtype));
    }
    let items = col.join(", ");
    if dims.len() == 1 {
        format!("c({items})")
    } else {
        format!("array(c({items}), dim = c({}))", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
    }
}

/// A result: type, dims and column-major values; a (named) list of results; NULL; or an
/// error's message.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Value { ty: String, dims: Vec<usize>, values: Vec<f64> },
    List(Vec<(Option<String>, Outcome)>),
    Null,
    Error(String),
}

/// Read one outcome from R's tokens: `V type ndims dims... values...`, `L n (name outcome)...`, `N`.
fn parse_outcome<'a>(w: &mut impl Iterator<Item = &'a str>) -> Outcome {
    let parse = |s: &str| -> f64 {
        match s {
            "NaN" | "NA" => f64::NAN,
            "Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            s => s.parse().unwrap(),
        }
    };
    match w.next().unwrap() {
        "N" => Outcome::Null,
        "L" => {
            let n: usize = w.next().unwrap().parse().unwrap();
            let items = (0..n)
                .map(|_| {
                    let name = w.next().unwrap();
                    let name = (name != "-").then(|| name.to_string());
                    (name, parse_outcome(w))
                })
                .collect();
            Outcome::List(items)
        }
        "V" => {
            let ty = w.next().unwrap().to_string();
            let nd: usize = w.next().unwrap().parse().unwrap();
            let dims: Vec<usize> = (0..nd).map(|_| w.next().unwrap().parse().unwrap()).collect();
            let count = dims.iter().product();
            let values = (0..count).map(|_| parse(w.next().unwrap())).collect();
            Outcome::Value { ty, dims, values }
        }
        other => panic!("bad token {other}"),
    }
}

fn run_r(cases: &[Case]) -> Vec<Outcome> {
    let mut script = String::from("options(warn = 2)\n");
    script.push_str(SOURCE);
    script.push_str(
        r#"
emit_val <- function(r) {
  if (is.null(r)) return("N")
  if (is.list(r)) {
    nm <- names(r)
    if (is.null(nm)) nm <- rep("", length(r))
    parts <- vapply(seq_along(r), function(k) paste(if (nzchar(nm[k])) nm[k] else "-", emit_val(r[[k]])), "")
    return(paste(c("L", length(r), parts), collapse = " "))
  }
  d <- if (is.null(dim(r))) length(r) else dim(r)
  v <- as.vector(r)
  vals <- if (is.logical(v)) ifelse(v, "1", "0") else ifelse(is.na(v), "NaN", sprintf("%.17g", as.double(v)))
  paste(c("V", typeof(r), length(d), d, vals), collapse = " ")
}
run_case <- function(id, thunk) {
  r <- tryCatch(thunk(), error = function(e) structure(list(conditionMessage(e)), class = "r_err"))
  if (inherits(r, "r_err")) cat("CASE", id, "ERROR", gsub("\n", " ", r[[1]]), "\n") else cat("CASE", id, "OK", emit_val(r), "\n")
}
"#,
    );
    for (id, c) in cases.iter().enumerate() {
        let args: Vec<String> = c.args.as_array().unwrap().iter().map(r_literal).collect();
        let sets: String = c.globals.iter().map(|(n, v)| format!("assign(\"{n}\", {}, envir = globalenv()); ", r_literal(v))).collect();
        script.push_str(&format!("run_case({id}, function() {{ {sets}{}({}) }})\n", c.func, args.join(", ")));
    }
    let path = std::env::temp_dir().join(format!("vr_frontend_r_lists_{}.R", std::process::id()));
    std::fs::write(&path, &script).unwrap();
    let out = Command::new("Rscript").arg("--vanilla").arg(&path).output().expect("Rscript runs (R is part of the test setup)");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "Rscript failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    let mut results: HashMap<usize, Outcome> = HashMap::new();
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        if w.next() != Some("CASE") {
            continue;
        }
        let id: usize = w.next().unwrap().parse().unwrap();
        let outcome = match w.next().unwrap() {
            "ERROR" => Outcome::Error(w.collect::<Vec<_>>().join(" ")),
            _ => parse_outcome(&mut w),
        };
        results.insert(id, outcome);
    }
    (0..cases.len()).map(|i| results.remove(&i).unwrap_or_else(|| panic!("R printed no result for case {i}:\n{stdout}"))).collect()
}

fn type_name(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "logical",
        ScalarType::I32 | ScalarType::I64 => "integer",
        ScalarType::F32 | ScalarType::F64 => "double",
        ScalarType::C64 | ScalarType::C128 => "complex",
    }
}

fn scalar_f64(s: &Scalar) -> f64 {
    s.as_f64().unwrap()
}

fn one(v: &Value) -> Outcome {
    match v {
        Value::Scalar(s) => Outcome::Value { ty: type_name(s.ty()).into(), dims: vec![1], values: vec![scalar_f64(s)] },
        Value::Array(a) => {
            let n = a.len();
            let mut values = Vec::with_capacity(n);
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
                values.push(scalar_f64(&a.get(&idx)));
            }
            Outcome::Value { ty: type_name(a.ty.elem).into(), dims: a.dims.clone(), values }
        }
        other => panic!("unexpected result {other:?}"),
    }
}

fn ours(results: &[Value], list: Option<&ListTy>) -> Outcome {
    fn build(l: &ListTy, it: &mut std::slice::Iter<Value>) -> Outcome {
        Outcome::List(
            l.fields
                .iter()
                .map(|f| {
                    let o = match &f.ty {
                        AnyTy::List(sub) => build(sub, it),
                        _ => one(it.next().expect("a result per element")),
                    };
                    (f.name.clone(), o)
                })
                .collect(),
        )
    }
    if let Some(l) = list {
        let mut it = results.iter();
        let out = build(l, &mut it);
        assert!(it.next().is_none(), "more results than list elements");
        return out;
    }
    match results {
        [] => Outcome::Null,
        [v] => one(v),
        other => panic!("unexpected results {other:?}"),
    }
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Value { ty: t1, dims: d1, values: v1 }, Outcome::Value { ty: t2, dims: d2, values: v2 }) => {
            t1 == t2 && d1 == d2 && v1.iter().zip(v2).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) || (*x == 0.0 && *y == 0.0))
        }
        (Outcome::List(a), Outcome::List(b)) => a.len() == b.len() && a.iter().zip(b).all(|((n1, o1), (n2, o2))| n1 == n2 && same(o1, o2)),
        (Outcome::Null, Outcome::Null) => true,
        _ => false,
    }
}

/// The module and argument values of a case: its arguments, then its globals.
fn compile_case(c: &Case) -> velociraptor::VrResult<(r::Compiled, Vec<Value>)> {
    let args = c.args.as_array().unwrap();
    let mut sig = Signature::default();
    let mut values = Vec::new();
    for a in args {
        let t = r::json_arg_type(a)?;
        r::json_values(a, &t, &mut values)?;
        sig.args.push(t);
    }
    for (n, v) in &c.globals {
        let t = r::json_arg_type(v)?;
        r::json_values(v, &t, &mut values)?;
        sig.globals.push((n.to_string(), t));
    }
    Ok((r::compile_entry(SOURCE, c.func, &sig)?, values))
}

#[test]
fn lists_data_frames_and_globals_agree_with_r() {
    let cases = cases();
    let expected = run_r(&cases);
    let mut failures = Vec::new();
    let mut passed: HashMap<Backend, usize> = HashMap::new();
    for (id, (c, r_out)) in cases.iter().zip(&expected).enumerate() {
        let label = format!("case {id}: {}({}) globals {:?}", c.func, c.args, c.globals);
        let (compiled, values) = match compile_case(c) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{label}: does not compile: {e}"));
                continue;
            }
        };
        for b in Backend::available() {
            let got = match backend::execute(b, &compiled.module, c.func, values.clone()) {
                Ok(v) => ours(&v, compiled.result_list.as_ref()),
                Err(e) => Outcome::Error(r::explain_error(e).to_string()),
            };
            let ok = match (r_out, &got) {
                (Outcome::Error(_), _) if c.raises => false,
                (_, Outcome::Error(m)) if c.raises => m.starts_with("unsupported"),
                _ if c.raises => false,
                // Where R raises an error, compiled code raises one with R's message.
                (Outcome::Error(r_msg), Outcome::Error(m)) => m.contains(r_msg.as_str()),
                _ => same(r_out, &got),
            };
            if ok {
                *passed.entry(b).or_default() += 1;
            } else {
                failures.push(format!("{label} on {b}: R gave {r_out:?}, compiled code gave {got:?}"));
            }
        }
    }
    for b in Backend::available() {
        eprintln!("{b}: {} of {} passed", passed.get(&b).copied().unwrap_or(0), cases.len());
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert_eq!(passed.get(&Backend::Interp).copied().unwrap_or(0), cases.len(), "every case runs on the interpreter");
}

/// A list argument of these (name, type) elements.
fn list_of(fields: &[(&str, AnyTy)]) -> AnyTy {
    AnyTy::List(ListTy {
        frame: false,
        fields: fields.iter().map(|(n, t)| velociraptor::frontend::types::Field { name: Some(n.to_string()), ty: t.clone() }).collect(),
    })
}

#[track_caller]
fn refused(src: &str, args: Vec<AnyTy>, construct: &str, line: u32) {
    let e = r::compile_sig(src, "f", &Signature { args, globals: vec![] }).expect_err("must not compile");
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains(construct), "`{construct}` not named in: {e}");
    assert_eq!(e.line, Some(line), "{e}");
    assert_eq!(e.function.as_deref(), Some("f"), "{e}");
}

#[test]
fn unsupported_list_constructs_name_the_construct() {
    let vec = AnyTy::Value(Ty::array(ScalarType::F64, 1));
    let num = AnyTy::Value(Ty::scalar(ScalarType::F64));
    let data = list_of(&[("x", vec.clone()), ("s", AnyTy::Opaque("a character vector".into()))]);
    let frame = match list_of(&[("x", vec.clone())]) {
        AnyTy::List(mut l) => {
            l.frame = true;
            AnyTy::List(l)
        }
        _ => unreachable!(),
    };
    refused("f <- function(d) {\n  i <- 1\n  d[[i]]\n}", vec![data.clone()], "computed position", 3);
    let mixed = list_of(&[("x", vec.clone()), ("n", num.clone())]);
    refused("f <- function(d, i) d[[i]]", vec![mixed, num.clone()], "computed position", 1);
    refused("f <- function(d, i) {\n  d[[i]] <- 0\n  d$x\n}", vec![data.clone(), num.clone()], "computed position", 2);
    refused("f <- function(d) d$nope", vec![data.clone()], "`d$nope`", 1);
    refused("f <- function(d) d$s", vec![data.clone()], "a character vector", 1);
    refused("f <- function(d) sum(d)", vec![data.clone()], "list `d` used as a value", 1);
    refused("f <- function(d) d[1]", vec![data.clone()], "`[` on a list", 1);
    refused("f <- function(d) d[[3]]", vec![data.clone()], "subscript out of bounds", 1);
    refused("f <- function(d) {\n  d$y <- 1\n  d$x\n}", vec![data.clone()], "adding an element", 2);
    refused("f <- function(d) {\n  d$x[1] <- 0\n  sum(d$x)\n}", vec![frame.clone()], "read-only", 2);
    refused("f <- function(x) x$a", vec![num.clone()], "not a list", 1);
    refused("f <- function(x) nrow(list(a = x))", vec![num.clone()], "`nrow` of a list", 1);
    refused("f <- function(d, j) d[1, j]", vec![frame.clone(), num.clone()], "one column by a constant", 1);
    refused("f <- function(d) d[1, \"y\"]", vec![frame.clone()], "undefined columns selected", 1);
    // A list result: every return the same kind of list; no data frame, no unreadable element.
    refused("f <- function(x) {\n  if (x > 0) return(list(a = x))\n  x\n}", vec![num.clone()], "one kind of list", 3);
    refused("f <- function(x) {\n  if (x > 0) return(list(a = x))\n  list(b = x)\n}", vec![num.clone()], "one kind of list", 3);
    refused("f <- function(d) d", vec![frame.clone()], "data frame as the function's value", 1);
    refused("f <- function(d) d", vec![data.clone()], "a character vector", 1);
    refused("g <- function(x) list(a = x)\nf <- function(x) g(x) + 1", vec![num.clone()], "list `g(...)` used as a value", 2);
    // Names are strings: only a loop's sequence, each a constant in its turn's body.
    refused("f <- function(d) length(names(d))", vec![data.clone()], "names are strings", 1);
    let named = list_of(&[("x", vec.clone()), ("n", num.clone())]);
    refused("f <- function(d) {\n  s <- 0\n  for (nm in names(d)) s <- s + nm\n  s\n}", vec![named.clone()], "string", 3);
    refused("f <- function(d) {\n  for (nm in names(d)) nm <- 1\n  0\n}", vec![named.clone()], "assigns `nm`", 2);
    refused("f <- function(x) {\n  for (nm in names(x)) x <- x + 1\n  x\n}", vec![num.clone()], "not a list", 2);
    let unnamed = AnyTy::List(ListTy { frame: false, fields: vec![velociraptor::frontend::types::Field { name: None, ty: num.clone() }] });
    refused("f <- function(d) {\n  s <- 0\n  for (nm in names(d)) s <- s + d[[nm]]\n  s\n}", vec![unnamed], "has no name", 3);
    // Records at a computed position: a missing name, an index into the element.
    let recs = list_of(&[("a", named.clone()), ("b", named.clone())]);
    refused("f <- function(d, i) d[[i]]$nope", vec![recs.clone(), num.clone()], "no element named `nope`", 1);
    refused("f <- function(d, i) d[[i]]", vec![recs.clone(), num.clone()], "computed position", 1);
    refused("f <- function(d, i) {\n  d[[i]]$x[1] <- 0\n  d$a$n\n}", vec![recs.clone(), num.clone()], "computed index", 2);
    // An opaque argument compiles as long as nothing reads it.
    let sig = Signature { args: vec![num.clone(), AnyTy::Opaque("a character vector".into())], globals: vec![] };
    assert!(r::compile_sig("f <- function(x, label) x + 1", "f", &sig).is_ok());
    let e = r::compile_sig("f <- function(x, label) label", "f", &sig).unwrap_err();
    assert!(e.message.contains("`label`") && e.message.contains("a character vector"), "{e}");
    // A list variable keeps its names and its kind.
    let e = r::compile_sig("f <- function(x) {\n  l <- list(a = x)\n  if (x > 0) l <- list(b = x)\n  l$a\n}", "f", &Signature::of_values(vec![Ty::scalar(ScalarType::F64)])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
    assert!(e.message.contains("keeps its names"), "{e}");
    let e = r::compile_sig("f <- function(x) {\n  l <- list(a = x)\n  l <- x\n  x\n}", "f", &Signature::of_values(vec![Ty::scalar(ScalarType::F64)])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type, "{e}");
}

#[test]
fn a_list_argument_is_one_parameter_per_element_and_globals_follow() {
    let data = list_of(&[
        ("x", AnyTy::Value(Ty::array(ScalarType::F64, 1))),
        ("inner", list_of(&[("k", AnyTy::Value(Ty::scalar(ScalarType::I32)))])),
        ("s", AnyTy::Opaque("a character vector".into())),
    ]);
    let sig = Signature { args: vec![data], globals: vec![("K".into(), AnyTy::Value(Ty::scalar(ScalarType::F64)))] };
    let m = r::compile_sig("f <- function(d) sum(d$x) + d$inner$k * K + g()\ng <- function() K", "f", &sig).unwrap();
    let f = m.function("f").unwrap();
    let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let types: Vec<String> = f.params.iter().map(|p| p.ty.to_string()).collect();
    assert_eq!(types, sig.params(velociraptor::vrir::Layout::Col).iter().map(|t| t.to_string()).collect::<Vec<_>>());
    // The callee takes the global too.
    assert_eq!(m.function("g").unwrap().params.len(), 1);
}

#[test]
fn variables_whose_compiled_names_coincide_are_refused() {
    // `a$b_c` and `a_b$c` would both be `r_a_b_c`.
    let src = "f <- function(x) {\n  a <- list(b_c = x)\n  a_b <- list(c = x + 1)\n  a$b_c + a_b$c\n}";
    let e = r::compile_sig(src, "f", &Signature::of_values(vec![Ty::scalar(ScalarType::F64)])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("coincide"), "{e}");
}

#[test]
fn vr_run_takes_list_arguments_and_prints_list_results() {
    let out = Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(["run", "core/tests/frontend_r/lists.R", "stats_list", "--args", "[[1.0, 2.5, 4.0]]"])
        .current_dir(std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("vr runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // R: list(total = 7.5, scaled = c(2, 5, 8), n = 3L, nested = list(a = 1L, b = 1))
    assert_eq!(
        stdout.trim(),
        r#"{"list":[["total",7.5],["scaled",{"data":[2.0,5.0,8.0],"dtype":"f64","shape":[3]}],["n",3],["nested",{"list":[["a",1],["b",1.0]]}]]}"#
    );
    let args = r#"[{"list": [["x", [1.0, 2.0, 3.0, 4.5]], ["w", 0.5], ["m", [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]], ["n", {"dtype": "i32", "data": 4}]]}]"#;
    let out = Command::new(env!("CARGO_BIN_EXE_vr"))
        .args(["run", "core/tests/frontend_r/lists.R", "run", "--args", args, "--backend", "cpu"])
        .current_dir(std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("vr runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // (1 + 2 + 3 + 4.5) * 0.5 + 21 + 6 + 4
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "36.25");
}
