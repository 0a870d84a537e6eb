//! Every example of docs/frontend-matlab.md is a tested case: each ```matlab block is a
//! function file, and its `% vr: NAME ARGS [NOUT]` lines are calls run in Octave and
//! compiled (frontend_matlab/harness.rs): `% vr:` results must be equal,
//! `% vr-fallback:` calls left to Octave (`unsupported`), `% vr-error:` calls must raise
//! in both.

#![allow(clippy::result_large_err)]

#[path = "frontend_matlab/harness.rs"]
mod harness;

use harness::{Case, Expect};

const DOC: &str = include_str!("../../docs/frontend-matlab.md");

/// The doc's MATLAB blocks: source and calls.
fn blocks() -> Vec<(String, Vec<Case>)> {
    let mut out = Vec::new();
    let mut lines = DOC.lines();
    while let Some(l) = lines.next() {
        if l.trim() != "```matlab" {
            continue;
        }
        let mut src = String::new();
        let mut cases = Vec::new();
        for l in lines.by_ref() {
            if l.trim() == "```" {
                break;
            }
            src.push_str(l);
            src.push('\n');
            let directive = [("% vr: ", Expect::Same), ("% vr-fallback: ", Expect::Fallback), ("% vr-error: ", Expect::Error)]
                .into_iter()
                .find_map(|(p, e)| l.strip_prefix(p).map(|rest| (rest, e)));
            let Some((rest, expect)) = directive else { continue };
            let (name, call) = rest.split_once(' ').expect("NAME ARGS");
            let call = call.trim();
            let (json, nout) = match call.rsplit_once(' ') {
                Some((j, n)) if n.chars().all(|c| c.is_ascii_digit()) && j.trim_end().ends_with(']') => (j, n.parse().unwrap()),
                _ => (call, 1),
            };
            let args: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("bad arguments `{json}`: {e}"));
            cases.push(Case { func: Box::leak(name.to_string().into_boxed_str()), nout, args, expect });
        }
        out.push((src, cases));
    }
    out
}

#[test]
fn every_example_of_the_doc_is_octaves_answer() {
    let blocks = blocks();
    assert!(blocks.len() >= 8, "the doc has its examples");
    let mut failures = Vec::new();
    let mut calls = 0;
    for (src, cases) in &blocks {
        assert!(!cases.is_empty(), "an example without calls:\n{src}");
        calls += cases.len();
        let report = harness::check(src, cases);
        failures.extend(report.failures);
        assert_eq!(report.passed_interp, cases.len(), "{src}");
    }
    eprintln!("{} examples, {calls} calls", blocks.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
