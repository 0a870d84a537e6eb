//! The optimizer: VRIR -> VRIR passes, run in a fixed order before a backend compiles.
//!
//! Every pass is one file and one entry of [`PASSES`] (as in Weld's pass table): a name,
//! a one-line summary and a function that rewrites one function of the module and adds
//! to its named counters. [`optimize`] runs the enabled passes in table order over every
//! function and verifies the module after each pass, so a pass that breaks the IR is an
//! internal error naming the pass, never wrong code.
//!
//! Passes are switched by [`OptOptions`]: from the `VR_PASSES` environment variable
//! (`VR_PASSES=-bce-version`, `none`, `none,+bce-redundant`), from the C API's
//! configuration (which fills the same struct), or, for tests, scoped to a thread with
//! [`with_options`]. The order and every counter are documented in docs/optimizer.md.

pub mod alias_version;
pub mod atomic_privatize;
pub mod bce;
pub mod elementwise;
pub mod explain;
pub mod fusion;
pub mod hoist_dims;
pub mod hoist_scalars;
pub mod index_arith;
pub mod licm;
pub mod prealloc;
pub mod recycle;
pub mod reuse;
pub mod seq_ranges;
pub mod shape_facts;
pub mod simplify;
pub mod views;

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::{Expr, Function, Module};
use crate::vrir::verify::verify_module;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Named counters of one pass on one function (`checks_removed` -> 3).
pub type Counters = BTreeMap<&'static str, u64>;

/// What a pass is given besides the function it rewrites.
pub struct PassContext<'a> {
    /// The module as it stands before this pass ran on the function (for callee types).
    pub module: &'a Module,
    pub options: &'a OptOptions,
}

/// One optimizing pass.
pub struct Pass {
    pub name: &'static str,
    pub summary: &'static str,
    pub run: fn(&mut Function, &PassContext, &mut Counters) -> VrResult<()>,
}

/// Every pass, in the order they run: subscripts by sequence vectors made ranges first
/// (before simplification splits the casts of `J - 1` into temporaries), then simplification (later passes see explicit
/// allocations), then scalar operands of element-wise expressions computed first (so
/// the expressions are trees of variables), then slices of arrays nothing writes read
/// in place (so fusion's loops read the source, not a copy), then R's recycling guards removed or
/// versioned (they split chains of vector operations into single statements), then
/// fusion (which absorbs simplify's temporaries into one loop), then fusion's shape
/// tests that enclosing tests and allocations already decide taken as true, then arrays that loops
/// assign given a value before the loop (so reuse may write them in place), then
/// memory reuse (which sees fused loops as well as single operations and writes them
/// into the target's buffer), then integer index arithmetic and invariant hoisting
/// (which put subscripts and loop bounds in the form versioning reads), then redundant
/// checks, then versioning (which copies nests whose redundant checks are already
/// gone), then extent hoisting (after versioning, which reads `(dim A k)` forms in loop
/// bounds as extents), and last the decisions the cpu backend carries out on the final
/// VRIR: which functions get a no-alias version, which parfor atomics become per-chunk
/// sums.
pub const PASSES: &[Pass] = &[
    seq_ranges::SEQ_RANGES,
    simplify::SIMPLIFY,
    hoist_scalars::HOIST_SCALARS,
    views::SLICE_VIEWS,
    recycle::RECYCLE_VERSION,
    fusion::FUSION,
    shape_facts::SHAPE_FACTS,
    prealloc::PREALLOC,
    reuse::REUSE,
    index_arith::INDEX_ARITH,
    licm::LICM,
    bce::REDUNDANT,
    bce::VERSION,
    hoist_dims::HOIST_DIMS,
    alias_version::ALIAS_VERSION,
    atomic_privatize::ATOMIC_PRIVATIZE,
];

/// Names that switch several passes at once.
const GROUPS: &[(&str, &[&str])] = &[("bce", &["bce-redundant", "bce-version"])];

/// Which passes run, and what the host promises about its arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct OptOptions {
    /// Passes switched off (by name, from [`PASSES`]).
    pub disabled: BTreeSet<&'static str>,
    /// The host declares that array parameters never share storage (R, MATLAB).
    pub params_never_alias: bool,
    /// The backend runs `parfor` loops in parallel (cpu-par): loops that passes write
    /// over many elements become `parfor` where their iterations are independent, so
    /// fused code keeps the parallel element-wise loops it replaces. Set by whoever
    /// picks the backend, not by `VR_PASSES`.
    pub parallel_loops: bool,
}

/// The environment variable [`OptOptions::from_env`] reads.
pub const PASSES_ENV: &str = "VR_PASSES";

impl OptOptions {
    /// Every pass on.
    pub fn all() -> OptOptions {
        OptOptions::default()
    }

    /// Every pass off.
    pub fn none() -> OptOptions {
        OptOptions {
            disabled: PASSES.iter().map(|p| p.name).collect(),
            params_never_alias: false,
            parallel_loops: false,
        }
    }

    pub fn is_enabled(&self, pass: &str) -> bool {
        !self.disabled.contains(pass)
    }

    /// Switch a pass or group on or off; an unknown name is an error listing the names.
    pub fn set(&mut self, name: &str, on: bool) -> VrResult<()> {
        let names: Vec<&'static str> = match PASSES.iter().find(|p| p.name == name) {
            Some(p) => vec![p.name],
            None => match GROUPS.iter().find(|(g, _)| *g == name) {
                Some((_, members)) => members.to_vec(),
                None => {
                    let known: Vec<&str> = PASSES
                        .iter()
                        .map(|p| p.name)
                        .chain(GROUPS.iter().map(|(g, _)| *g))
                        .collect();
                    return Err(VrError::new(
                        ErrorKind::InvalidArgument,
                        format!(
                            "unknown optimizer pass `{name}` (passes: {}; also all, none)",
                            known.join(", ")
                        ),
                    ));
                }
            },
        };
        for n in names {
            if on {
                self.disabled.remove(n);
            } else {
                self.disabled.insert(n);
            }
        }
        Ok(())
    }

    /// Read a switch list, applied left to right to "every pass on": comma-separated
    /// items `-NAME` (off), `+NAME` or `NAME` (on), `none`, `all`; NAME a pass or a
    /// group (`bce` = both bounds-check passes). Blank items are ignored.
    pub fn parse(spec: &str) -> VrResult<OptOptions> {
        let mut o = OptOptions::all();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "none" => o.disabled = OptOptions::none().disabled,
                "all" => o.disabled.clear(),
                _ => match item.strip_prefix('-') {
                    Some(name) => o.set(name, false)?,
                    None => o.set(item.strip_prefix('+').unwrap_or(item), true)?,
                },
            }
        }
        Ok(o)
    }

    /// The options `VR_PASSES` gives (every pass on when it is unset).
    pub fn from_env() -> VrResult<OptOptions> {
        match std::env::var(PASSES_ENV) {
            Ok(spec) => OptOptions::parse(&spec)
                .map_err(|e| VrError::new(e.kind, format!("{PASSES_ENV}: {}", e.message))),
            Err(_) => Ok(OptOptions::all()),
        }
    }

    /// The options in force on this thread: those of an enclosing [`with_options`], else
    /// `VR_PASSES`.
    pub fn current() -> VrResult<OptOptions> {
        match scoped() {
            Some(o) => Ok(o),
            None => OptOptions::from_env(),
        }
    }
}

thread_local! {
    static SCOPED: RefCell<Option<OptOptions>> = const { RefCell::new(None) };
}

/// Run `f` with `opts` in force on this thread. Inside, every backend (the interpreter
/// included) runs modules optimized with `opts`: the conformance and differential
/// tests use it to check optimized modules against expected values and against the
/// unoptimized interpreter without touching the process environment.
pub fn with_options<R>(opts: OptOptions, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<OptOptions>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            SCOPED.with(|s| *s.borrow_mut() = prev);
        }
    }
    let prev = SCOPED.with(|s| s.borrow_mut().replace(opts));
    let _restore = Restore(prev);
    f()
}

/// The options of an enclosing [`with_options`] on this thread, if any.
pub fn scoped() -> Option<OptOptions> {
    SCOPED.with(|s| s.borrow().clone())
}

/// What one pass did to one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassReport {
    pub pass: &'static str,
    pub function: String,
    pub counters: Counters,
}

/// What the optimizer did: one report per (enabled pass, function), in run order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OptStats {
    pub reports: Vec<PassReport>,
}

impl OptStats {
    /// A counter summed over functions (0 when no report has it).
    pub fn total(&self, pass: &str, counter: &str) -> u64 {
        self.reports
            .iter()
            .filter(|r| r.pass == pass)
            .filter_map(|r| r.counters.get(counter))
            .sum()
    }
    /// The reports about one function.
    pub fn for_function<'s>(
        &'s self,
        function: &'s str,
    ) -> impl Iterator<Item = &'s PassReport> + 's {
        self.reports.iter().filter(move |r| r.function == function)
    }
}

impl fmt::Display for PassReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} on {}:", self.pass, self.function)?;
        if self.counters.is_empty() {
            return f.write_str(" nothing to do");
        }
        for (k, v) in &self.counters {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

impl fmt::Display for OptStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.reports {
            writeln!(f, "{r}")?;
        }
        Ok(())
    }
}

/// Run the enabled passes over every function of a verified module, in [`PASSES`]
/// order. The result verifies; if a pass breaks that, the error names the pass.
pub fn optimize(m: &Module, options: &OptOptions) -> VrResult<(Module, OptStats)> {
    let mut out = m.clone();
    let mut stats = OptStats::default();
    for pass in PASSES.iter().filter(|p| options.is_enabled(p.name)) {
        // A safe point: the module is whole between passes (cpu::interrupt says why).
        crate::cpu::interrupt::check_compile(&format!("optimizer pass `{}`", pass.name))?;
        let t = std::time::Instant::now();
        for i in 0..out.functions.len() {
            let mut f = out.functions[i].clone();
            let mut counters = Counters::new();
            {
                let cx = PassContext {
                    module: &out,
                    options,
                };
                (pass.run)(&mut f, &cx, &mut counters)?;
            }
            counters.retain(|_, v| *v != 0);
            stats.reports.push(PassReport {
                pass: pass.name,
                function: f.name.clone(),
                counters,
            });
            out.functions[i] = f;
        }
        verify_module(&out).map_err(|e| {
            VrError::new(
                ErrorKind::Internal,
                format!(
                    "optimizer pass `{}` produced a module that does not verify: {}",
                    pass.name, e.message
                ),
            )
        })?;
        crate::compile_phases::record(pass.name, t);
    }
    Ok((out, stats))
}

/// The direct subexpressions of `e`, mutable, in evaluation order (the mutable twin of
/// [`crate::analysis::sub_exprs`]).
pub fn sub_exprs_mut(e: &mut Expr) -> Vec<&mut Expr> {
    use crate::vrir::ast::AllocInit;
    match e {
        Expr::Const { .. } | Expr::Var { .. } => vec![],
        Expr::Unary { arg, .. }
        | Expr::Cast { arg, .. }
        | Expr::Reduce { arg, .. }
        | Expr::Scan { arg, .. }
        | Expr::Dim { arg, .. }
        | Expr::TupleGet { arg, .. } => vec![&mut **arg],
        Expr::Binary { lhs, rhs, .. } => vec![&mut **lhs, &mut **rhs],
        Expr::Call { args, .. } | Expr::Lib { args, .. } | Expr::Map { args, .. } => {
            args.iter_mut().collect()
        }
        Expr::Alloc { init, dims, .. } => {
            let mut v: Vec<&mut Expr> = Vec::new();
            if let AllocInit::Fill { value } = init {
                v.push(&mut **value);
            }
            v.extend(dims.iter_mut());
            v
        }
        Expr::Range { start, stop, step } => [start, stop, step]
            .into_iter()
            .flatten()
            .map(|b| &mut **b)
            .collect(),
        Expr::Domain { ranges } => ranges.iter_mut().collect(),
        Expr::Tuple { items } => items.iter_mut().collect(),
        Expr::Index { array, indices, .. } => {
            let mut v: Vec<&mut Expr> = vec![&mut **array];
            v.extend(indices.iter_mut());
            v
        }
        Expr::AtomicAdd { indices, value, .. } => {
            let mut v: Vec<&mut Expr> = indices.iter_mut().collect();
            v.push(&mut **value);
            v
        }
        Expr::AtomicCas {
            indices,
            expected,
            new,
            ..
        } => {
            let mut v: Vec<&mut Expr> = indices.iter_mut().collect();
            v.push(&mut **expected);
            v.push(&mut **new);
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_lists_apply_left_to_right() {
        assert_eq!(OptOptions::parse("").unwrap(), OptOptions::all());
        let o = OptOptions::parse("-bce-version").unwrap();
        assert!(o.is_enabled("bce-redundant") && !o.is_enabled("bce-version"));
        let o = OptOptions::parse("none, +bce-redundant").unwrap();
        assert!(o.is_enabled("bce-redundant") && !o.is_enabled("bce-version"));
        let o = OptOptions::parse("-bce").unwrap();
        assert!(
            o.is_enabled("simplify")
                && !o.is_enabled("bce-redundant")
                && !o.is_enabled("bce-version")
        );
        let o = OptOptions::parse("-bce,all").unwrap();
        assert_eq!(o, OptOptions::all());
        let o = OptOptions::parse("-fusion,-reuse").unwrap();
        assert!(!o.is_enabled("fusion") && !o.is_enabled("reuse") && o.is_enabled("simplify"));
        let e = OptOptions::parse("-vectorize").unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
        assert!(
            e.message.contains("unknown optimizer pass `vectorize`"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("bce-redundant, bce-version, hoist-dims, alias-version, atomic-privatize, bce"),
            "{}",
            e.message
        );
    }

    #[test]
    fn scoped_options_apply_inside_and_are_restored_after() {
        assert_eq!(scoped(), None);
        let inner = with_options(OptOptions::none(), || {
            let nested = with_options(OptOptions::all(), scoped);
            (scoped(), nested)
        });
        assert_eq!(inner, (Some(OptOptions::none()), Some(OptOptions::all())));
        assert_eq!(scoped(), None);
    }
}
