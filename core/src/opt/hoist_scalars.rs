//! `hoist-scalars`: scalar operands of element-wise array expressions computed first,
//! into scalar temporaries. `(set d (- x (index x k)))` (R's `d <- x - x[k]`) becomes
//! `(set _s1 (index x k)) (set d (- x _s1))`.
//!
//! Why: `fusion` and `reuse` take element-wise trees whose leaves are variables and
//! constants only (a scalar subexpression inside a fused loop would be evaluated once
//! per element, and may fail there). With the scalar in a variable, the statement is
//! such a tree: it can be fused with its neighbours and written into its target's
//! buffer. R's vector style computes a scalar from the loop index in nearly every
//! iteration (`x[k]`, `a[i, j] * 2`).
//!
//! What is hoisted: in the value of an assignment to a variable, the largest scalar
//! subexpressions (not constants or variables) found below array-valued element-wise
//! operations (arithmetic, comparisons, unary operators, element-wise library math,
//! casts), in evaluation order, each into a fresh local `_sN` just before the
//! statement, on the statement's line. Moving a scalar earlier must not change what
//! happens first (the rule `simplify` follows): it is hoisted only when everything the
//! statement evaluates before it is a constant, a variable certainly assigned there
//! (reaching definitions) or an earlier hoisted scalar, none of which can fail or have
//! an effect; the first array operation ends the hoisting (it may fail on shapes).
//! Not in `parfor` bodies or GPU sections. Counter: `scalars_hoisted`.

use super::elementwise::fresh_local;
use super::{Counters, Pass, PassContext};
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::stmt_count;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, Function, LValue, LibFn, Module, Stmt, StmtKind};
use crate::vrir::types::Type;
use crate::vrir::verify::expr_type;

pub const HOIST_SCALARS: Pass = Pass {
    name: "hoist-scalars",
    summary: "compute scalar operands of element-wise array expressions into temporaries first",
    run,
};

struct Hoister<'a> {
    m: &'a Module,
    /// The function as written (types, analyses).
    orig: &'a Function,
    /// Its symbol table, where the temporaries are added.
    table: Function,
    reach: DefiniteAssignment,
    hoisted: u64,
}

/// Whether the element-wise library function `f` applies to each element.
fn is_elementwise_lib(f: LibFn) -> bool {
    !matches!(
        f,
        LibFn::Matmul | LibFn::Transpose | LibFn::Copy | LibFn::Len | LibFn::Ndims
    )
}

impl Hoister<'_> {
    fn is_array(&self, e: &Expr) -> bool {
        matches!(expr_type(self.m, self.orig, e), Ok(Type::Array(_)))
    }

    /// Walk the array-valued element-wise expression `e` in evaluation order, replacing
    /// hoistable scalar subexpressions by temporaries (appended to `out`). `clean`:
    /// nothing evaluated so far can fail or have an effect (set to false where the walk
    /// must stop: an array operation, or something not element-wise).
    fn walk(
        &mut self,
        e: &mut Expr,
        id: usize,
        line: Option<u32>,
        clean: &mut bool,
        out: &mut Vec<Stmt>,
    ) {
        if !*clean {
            return;
        }
        if !self.is_array(e) {
            match e {
                Expr::Const { .. } => {}
                Expr::Var { name } => {
                    if !self.reach.certainly_assigned(id, name) {
                        *clean = false;
                    }
                }
                _ => {
                    let Ok(ty) = expr_type(self.m, self.orig, e) else {
                        *clean = false;
                        return;
                    };
                    if !matches!(ty, Type::Scalar { .. }) {
                        *clean = false;
                        return;
                    }
                    let t = fresh_local(&mut self.table, "_s", ty);
                    let value = std::mem::replace(e, Expr::var(&t));
                    out.push(Stmt {
                        kind: StmtKind::Assign {
                            targets: vec![LValue::Var { name: t }],
                            value,
                        },
                        line,
                    });
                    self.hoisted += 1;
                }
            }
            return;
        }
        match e {
            Expr::Var { name } => {
                if !self.reach.certainly_assigned(id, name) {
                    *clean = false;
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let logical = op.is_logical();
                self.walk(lhs, id, line, clean, out);
                if logical {
                    // The right side of an element-wise `and`/`or` runs for every element;
                    // a scalar one may not run at all: stop here.
                    *clean = false;
                    return;
                }
                self.walk(rhs, id, line, clean, out);
                // The operation itself may fail (shapes).
                *clean = false;
            }
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } => {
                self.walk(arg, id, line, clean, out);
                *clean = false;
            }
            Expr::Lib { func, args } if is_elementwise_lib(*func) => {
                for a in args {
                    self.walk(a, id, line, clean, out);
                }
                *clean = false;
            }
            _ => *clean = false,
        }
    }

    fn stmts(&mut self, stmts: Vec<Stmt>, first: usize) -> Vec<Stmt> {
        let ids = crate::analysis::stmt_ids(&stmts, first);
        let mut out = Vec::with_capacity(stmts.len());
        for (j, mut s) in stmts.into_iter().enumerate() {
            let sid = ids[j];
            match &mut s.kind {
                StmtKind::Block(b) if !b.on_gpu => {
                    b.stmts = self.stmts(std::mem::take(&mut b.stmts), sid + 1)
                }
                StmtKind::If { then, els, .. } => {
                    let else_first = sid + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                    if !then.on_gpu {
                        then.stmts = self.stmts(std::mem::take(&mut then.stmts), sid + 1);
                    }
                    if let Some(e) = els.as_mut().filter(|e| !e.on_gpu) {
                        e.stmts = self.stmts(std::mem::take(&mut e.stmts), else_first);
                    }
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } if !body.on_gpu => {
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), sid + 1)
                }
                StmtKind::Assign { targets, value }
                    if matches!(targets.as_slice(), [LValue::Var { .. }])
                        && self.is_array(value)
                        && !matches!(value, Expr::Var { .. }) =>
                {
                    let mut clean = true;
                    let mut before = Vec::new();
                    let line = s.line;
                    self.walk(value, sid, line, &mut clean, &mut before);
                    out.extend(before);
                }
                _ => {}
            }
            out.push(s);
        }
        out
    }
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let orig = f.clone();
    let mut table = f.clone();
    table.body = Vec::new();
    let mut h = Hoister {
        m: cx.module,
        orig: &orig,
        table,
        reach: DefiniteAssignment::compute(&orig),
        hoisted: 0,
    };
    let body = h.stmts(std::mem::take(&mut f.body), 0);
    if h.hoisted > 0 {
        *counters.entry("scalars_hoisted").or_default() += h.hoisted;
    }
    f.locals = h.table.locals;
    f.body = body;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::{parse_module, print_module};

    fn after(body: &str) -> String {
        let src = format!(
            "(module m :index-base 1 (function f ((x f64[1,col]) (y f64[1,col]) (k i64)) (f64[1,col])
               (locals (d f64[1,col]) (u f64[1,col])) {body}))"
        );
        let m = parse_module(&src).expect("parses");
        crate::vrir::verify::verify_module(&m).expect("verifies");
        let mut f = m.functions[0].clone();
        let mut counters = Counters::default();
        let opts = super::super::OptOptions::all();
        run(
            &mut f,
            &PassContext {
                module: &m,
                options: &opts,
            },
            &mut counters,
        )
        .expect("runs");
        let mut out = m.clone();
        out.functions[0] = f;
        crate::vrir::verify::verify_module(&out).expect("still verifies");
        print_module(&out)
    }

    #[test]
    fn a_scalar_read_before_any_array_operation_moves_first() {
        let text = after("(set d (- x (* (index x k) 2.0))) (return d)");
        assert!(text.contains("(set _s1 (* (index x k) 2.0))"), "{text}");
        assert!(text.contains("(set d (- x _s1))"), "{text}");
    }

    #[test]
    fn a_scalar_after_an_array_operation_stays() {
        // (+ x y) may fail on shapes before (index x k) is read: the order stays.
        let text = after("(set d (* (+ x y) (index x k))) (return d)");
        assert!(!text.contains("_s1"), "{text}");
        // u may be unassigned: reading it fails first.
        let text = after("(set d (- u (index x k))) (return d)");
        assert!(!text.contains("_s1"), "{text}");
    }
}
