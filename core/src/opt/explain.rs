//! `vr explain` (and later the C API's `vr_explain`): what the optimizer did to one
//! function, as text: the optimized function in the text form, then comment lines with
//! each pass's counters, the share of inner-loop bounds checks removed, and the alias
//! classes of its arrays. Comments keep the output readable by the text parser.

use super::{bce, optimize, OptOptions, PASSES};
use crate::analysis::alias::AliasSets;
use crate::runtime::error::VrResult;
use crate::vrir::ast::Module;
use crate::vrir::text::print_module;
use std::fmt::Write;

/// Checked accesses inside innermost loops of `func` as written, and how many of them
/// the optimizer removed (on the check-free path of versioned loops).
pub fn inner_loop_checks(m: &Module, func: &str, opts: &OptOptions) -> VrResult<(u64, u64)> {
    let f = crate::backend::lookup(m, func)?;
    let (_, before) = bce::count_checks(&f.body);
    let (_, stats) = optimize(m, opts)?;
    let removed = stats
        .for_function(func)
        .filter_map(|r| r.counters.get("inner_checks_removed"))
        .sum();
    Ok((before, removed))
}

/// The report `vr explain FILE FUNCTION` prints.
pub fn explain(m: &Module, func: &str, opts: &OptOptions) -> VrResult<String> {
    crate::backend::lookup(m, func)?;
    let (optimized, stats) = optimize(m, opts)?;
    let f = crate::backend::lookup(&optimized, func)?;
    let mut out = String::new();
    let shown = Module {
        name: m.name.clone(),
        index_base: m.index_base,
        functions: vec![f.clone()],
    };
    out.push_str(&print_module(&shown));
    let on: Vec<&str> = PASSES
        .iter()
        .map(|p| p.name)
        .filter(|n| opts.is_enabled(n))
        .collect();
    let _ = writeln!(
        out,
        "; passes on: {}",
        if on.is_empty() {
            "none".to_string()
        } else {
            on.join(", ")
        }
    );
    for r in stats.for_function(func) {
        let _ = writeln!(out, "; {r}");
    }
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * part as f64 / whole as f64)
        }
    };
    let (all_before, _) = bce::count_checks(&crate::backend::lookup(m, func)?.body);
    let all_removed: u64 = stats
        .for_function(func)
        .filter_map(|r| r.counters.get("checks_removed"))
        .sum();
    let _ = writeln!(
        out,
        "; bounds checks: {all_before} as written, {all_removed} removed on the check-free path ({})",
        share(all_removed, all_before)
    );
    let (before, removed) = inner_loop_checks(m, func, opts)?;
    let _ = writeln!(
        out,
        "; inner-loop bounds checks: {before} as written, {removed} removed on the check-free path ({})",
        share(removed, before)
    );
    let alias = AliasSets::compute(f, opts.params_never_alias);
    let classes: Vec<String> = alias
        .classes
        .iter()
        .map(|c| format!("{{{}}}", c.join(", ")))
        .collect();
    let _ = writeln!(
        out,
        "; alias classes: {}",
        if classes.is_empty() {
            "(no arrays)".to_string()
        } else {
            classes.join(" ")
        }
    );
    Ok(out)
}
