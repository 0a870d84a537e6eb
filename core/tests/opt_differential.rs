//! Differential test of the optimizer: random well-typed programs (tests/common/gen.rs)
//! give the same results, leave their arguments the same and fail with the same error
//! whether they run as written on the interpreter (the oracle), optimized on the
//! interpreter, or optimized on the cpu backend.
//!
//! Generated programs never index out of bounds, which would leave the checked side of
//! loop versioning untested; so one `for` loop of each program is made to run one step
//! past its stop, and the program may now fail: then the error (kind, function, line,
//! variable, index, extent) must be exactly the oracle's. (Every access is checked in
//! the variant: the generator's own `:nocheck` marks hold only for the loops it wrote.)
//!
//! `PROPTEST_CASES=N` sets the number of cases, `VR_LONG_TESTS=1` multiplies the
//! default by ten.
//! `PROPTEST_RNG_SEED=S` fixes the random stream (proptest reads it through
//! `ProptestConfig::default()`; unset, each run draws a fresh seed): processes given
//! different seeds run different programs, and a seed's run is repeatable, which is how
//! scripts/differential-shards.sh spreads a long run over cores.

mod common;

use common::gen::{arguments, module_strategy, GenConfig};
use proptest::prelude::*;
use velociraptor::backend::{execute, Backend};
use velociraptor::opt::{with_options, OptOptions};
use velociraptor::runtime::value::Value;
use velociraptor::vrir::json::{from_json, to_json};
use velociraptor::vrir::text::print_module;
use velociraptor::vrir::verify::verify_module;
use velociraptor::vrir::{BinOp, Expr, Literal, Module, Stmt, StmtKind};
use velociraptor::{ErrorKind, VrError};

/// Push a range's stop one step further.
fn extend(range: &mut Expr) {
    if let Expr::Range {
        stop: Some(stop),
        step,
        ..
    } = range
    {
        let further = match step.as_deref() {
            None => 1,
            Some(Expr::Const {
                value: Literal::I64(k),
            }) => k.signum(),
            _ => 0,
        };
        let old = std::mem::replace(&mut **stop, Expr::i64(0));
        **stop = Expr::binary(BinOp::Add, old, Expr::i64(further));
    }
}

/// Count the ranges of `for` domains in `stmts` (preorder), and make range number
/// `target` run one step past its stop.
fn overrun(stmts: &mut [Stmt], seen: &mut usize, target: usize) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::For { domain, body, .. } => {
                let ranges: Vec<&mut Expr> = match domain {
                    Expr::Domain { ranges } => ranges.iter_mut().collect(),
                    r @ Expr::Range { .. } => vec![r],
                    _ => vec![],
                };
                for r in ranges {
                    if *seen == target {
                        extend(r);
                    }
                    *seen += 1;
                }
                overrun(&mut body.stmts, seen, target);
            }
            StmtKind::Parfor { body, .. } | StmtKind::While { body, .. } => {
                overrun(&mut body.stmts, seen, target)
            }
            StmtKind::Block(b) => overrun(&mut b.stmts, seen, target),
            StmtKind::If { then, els, .. } => {
                overrun(&mut then.stmts, seen, target);
                if let Some(e) = els {
                    overrun(&mut e.stmts, seen, target);
                }
            }
            _ => {}
        }
    }
}

/// `m` with every access checked: the generator marks accesses it keeps in bounds
/// `:nocheck`, which a loop pushed past its end would turn into undefined behaviour.
fn all_checked(m: &Module) -> Module {
    fn clear(node: &mut serde_json::Value) {
        match node {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(flags)) = map.get_mut("flags") {
                    flags.remove("check");
                }
                map.values_mut().for_each(clear);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(clear),
            _ => {}
        }
    }
    let mut tree: serde_json::Value = serde_json::from_str(&to_json(m)).unwrap();
    clear(&mut tree);
    from_json(&tree.to_string()).unwrap()
}

/// `m` with loop number `pick` (modulo the number of loops, over all functions)
/// running one step further, if that still verifies, and every access checked.
fn overrun_one_loop(m: &Module, pick: u32) -> Module {
    let m = &all_checked(m);
    let mut count = 0;
    let mut probe = m.clone();
    for f in &mut probe.functions {
        overrun(&mut f.body, &mut count, usize::MAX);
    }
    if count == 0 {
        return m.clone();
    }
    let target = pick as usize % count;
    let mut out = m.clone();
    let mut seen = 0;
    for f in &mut out.functions {
        overrun(&mut f.body, &mut seen, target);
    }
    if verify_module(&out).is_ok() {
        out
    } else {
        m.clone()
    }
}

type Outcome = (Result<Vec<Value>, VrError>, Vec<Value>);

fn run(
    backend: Backend,
    m: &Module,
    func: &str,
    args: Vec<Value>,
    opts: Option<OptOptions>,
) -> Outcome {
    let after = args.clone();
    let call = || execute(backend, m, func, args);
    let result = match opts {
        Some(o) => with_options(o, call),
        None => call(),
    };
    (result, after)
}

fn same(a: &Outcome, b: &Outcome) -> bool {
    let values =
        |x: &[Value], y: &[Value]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.same(q));
    let results = match (&a.0, &b.0) {
        (Ok(x), Ok(y)) => values(x, y),
        (Err(x), Err(y)) => x == y,
        _ => false,
    };
    results && values(&a.1, &b.1)
}

fn show(o: &Outcome) -> String {
    let vals = |v: &[Value]| {
        v.iter()
            .map(|x| x.to_json().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let r = match &o.0 {
        Ok(v) => vals(v),
        Err(e) => format!("error {e:?}"),
    };
    format!("{r} (arguments after: {})", vals(&o.1))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(48), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn optimized_programs_behave_as_written(
        g in module_strategy(GenConfig::default()),
        arg_tape in prop::collection::vec(any::<u32>(), 0..200),
        pick in any::<u32>(),
    ) {
        let m = overrun_one_loop(&g.module, pick);
        let entry = g.entry();
        let text = print_module(&m);
        let fresh = || arguments(entry, &arg_tape);
        let oracle = run(Backend::Interp, &m, &entry.name, fresh(), None);
        let interp = run(Backend::Interp, &m, &entry.name, fresh(), Some(OptOptions::all()));
        prop_assert!(same(&interp, &oracle), "optimized interp: {}\noracle: {}\n{}", show(&interp), show(&oracle), text);
        let cpu = run(Backend::Cpu, &m, &entry.name, fresh(), Some(OptOptions::all()));
        let not_compiled = matches!(&cpu.0, Err(e) if e.kind == ErrorKind::Unsupported);
        prop_assert!(not_compiled || same(&cpu, &oracle), "optimized cpu: {}\noracle: {}\n{}", show(&cpu), show(&oracle), text);
    }
}
