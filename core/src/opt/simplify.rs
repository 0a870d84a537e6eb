//! `simplify`: make allocating expressions explicit. An array-valued subexpression that
//! builds a new array (element-wise arithmetic, library math, casts, reductions along
//! an axis, maps, allocations, copying slices and gathers) nested inside a statement's
//! expression becomes an assignment to a fresh temporary just before the statement:
//! `(set c (+ (* a 2.0) b))` becomes `(set _t1 (* a 2.0)) (set c (+ _t1 b))`. This is the
//! seeds' step towards three-address form; memory reuse works on such assignments.
//!
//! Moving an expression earlier must not change what happens first: a subexpression is
//! hoisted only when everything the statement evaluates before it is a constant, a
//! variable certainly assigned there (reaching definitions) or an earlier temporary,
//! none of which can fail or have an effect. Nothing is hoisted from the right side of
//! `and`/`or` (it may not run), from loop domains and `while` conditions, from the array
//! operand of an index (errors name that array), or inside `parfor` bodies (whose
//! iterations may run concurrently).
//!
//! Inside GPU sections a returned array expression is made a temporary too
//! (`(return (+ a b))` becomes `(set _t1 (+ a b)) (return _t1)`): the section ends before
//! `return`, so only as an assignment inside it can the GPU compute it.

use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::stmt_count;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, Expr, Function, LValue, Local, Module, Stmt, StmtKind};
use crate::vrir::types::Type;
use crate::vrir::verify::expr_type;
use std::collections::BTreeSet;

pub const SIMPLIFY: Pass = Pass {
    name: "simplify",
    summary: "make nested allocating expressions explicit assignments to temporaries",
    run,
};

struct Simplifier<'a> {
    m: &'a Module,
    /// The function's symbol table (body taken out); temporaries are added to it.
    f: Function,
    reach: DefiniteAssignment,
    temps: BTreeSet<String>,
    next: usize,
    /// The statement being simplified: its preorder number, its line, and the
    /// assignments hoisted in front of it so far.
    id: usize,
    line: Option<u32>,
    hoisted: Vec<Stmt>,
    /// Inside a GPU section.
    in_gpu: bool,
}

/// Whether `e` (of array type) certainly builds a new array.
fn allocates(e: &Expr) -> bool {
    match e {
        Expr::Binary { .. }
        | Expr::Unary { .. }
        | Expr::Lib { .. }
        | Expr::Cast { .. }
        | Expr::Reduce { .. }
        | Expr::Scan { .. }
        | Expr::Map { .. }
        | Expr::Alloc { .. } => true,
        Expr::Index { flags, .. } => !flags.view,
        _ => false,
    }
}

impl Simplifier<'_> {
    fn fresh(&mut self) -> String {
        loop {
            self.next += 1;
            let name = format!("_t{}", self.next);
            if self.f.var_type(&name).is_none() {
                return name;
            }
        }
    }

    /// Visit `e` in evaluation order, hoisting into `self.hoisted`. `clean`: everything the
    /// statement evaluated so far can neither fail nor have an effect. `hoist`: false
    /// where `e` may not run (right side of and/or).
    fn expr(&mut self, e: &mut Expr, top: bool, hoist: bool, clean: &mut bool) {
        let clean_at_start = *clean;
        match e {
            Expr::Const { .. } => return,
            Expr::Var { name } => {
                let ok = self.temps.contains(name.as_str())
                    || self.reach.certainly_assigned(self.id, name);
                *clean = clean_at_start && ok;
                return;
            }
            Expr::Binary {
                op: BinOp::And | BinOp::Or,
                lhs,
                rhs,
            } => {
                self.expr(lhs, false, hoist, clean);
                self.expr(rhs, false, false, clean);
            }
            Expr::Index { array, indices, .. } => {
                // The array operand stays: an out-of-bounds error names it.
                self.expr(array, true, false, clean);
                for i in indices.iter_mut() {
                    self.expr(i, false, hoist, clean);
                }
            }
            _ => {
                for c in sub_exprs_mut(e) {
                    self.expr(c, false, hoist, clean);
                }
            }
        }
        if !top && hoist && clean_at_start && allocates(e) {
            if let Ok(Type::Array(ty)) = expr_type(self.m, &self.f, e) {
                let name = self.fresh();
                self.f.locals.push(Local {
                    name: name.clone(),
                    ty: Type::Array(ty),
                });
                self.temps.insert(name.clone());
                let value = std::mem::replace(e, Expr::var(name.clone()));
                self.hoisted.push(Stmt {
                    kind: StmtKind::Assign {
                        targets: vec![LValue::Var { name }],
                        value,
                    },
                    line: self.line,
                });
                *clean = clean_at_start;
                return;
            }
        }
        // Anything else evaluated here might fail.
        *clean = false;
    }

    fn stmts(&mut self, stmts: Vec<Stmt>, first: usize, in_parfor: bool) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let mut id = first;
        for mut s in stmts {
            let n = stmt_count(&s);
            self.id = id;
            self.line = s.line;
            let mut clean = true;
            match &mut s.kind {
                StmtKind::Assign { value, .. } if !in_parfor => {
                    self.expr(value, true, true, &mut clean)
                }
                StmtKind::Expr { expr } if !in_parfor => self.expr(expr, true, true, &mut clean),
                StmtKind::Return { values } if !in_parfor => {
                    let top = !self.in_gpu;
                    for v in values.iter_mut() {
                        self.expr(v, top, true, &mut clean);
                    }
                }
                StmtKind::If { cond, then, els } => {
                    if !in_parfor {
                        self.expr(cond, true, true, &mut clean);
                    }
                    // What the condition hoisted goes before the `if`, not into the
                    // branches simplified next.
                    let from_cond = std::mem::take(&mut self.hoisted);
                    let else_first = id + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                    let outer = self.in_gpu;
                    self.in_gpu = outer || then.on_gpu;
                    then.stmts = self.stmts(std::mem::take(&mut then.stmts), id + 1, in_parfor);
                    if let Some(e) = els {
                        self.in_gpu = outer || e.on_gpu;
                        e.stmts = self.stmts(std::mem::take(&mut e.stmts), else_first, in_parfor);
                    }
                    self.in_gpu = outer;
                    self.hoisted = from_cond;
                }
                StmtKind::Block(b) => {
                    let outer = self.in_gpu;
                    self.in_gpu |= b.on_gpu;
                    b.stmts = self.stmts(std::mem::take(&mut b.stmts), id + 1, in_parfor);
                    self.in_gpu = outer;
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    let outer = self.in_gpu;
                    self.in_gpu |= body.on_gpu;
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), id + 1, in_parfor);
                    self.in_gpu = outer;
                }
                StmtKind::Parfor { body, .. } => {
                    body.stmts = self.stmts(std::mem::take(&mut body.stmts), id + 1, true)
                }
                _ => {}
            }
            out.append(&mut self.hoisted);
            out.push(s);
            id += n;
        }
        out
    }
}

fn run(f: &mut Function, cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let reach = DefiniteAssignment::compute(f);
    let body = std::mem::take(&mut f.body);
    let mut table = f.clone();
    table.body = Vec::new();
    let mut s = Simplifier {
        m: cx.module,
        f: table,
        reach,
        temps: BTreeSet::new(),
        next: 0,
        id: 0,
        line: None,
        hoisted: Vec::new(),
        in_gpu: false,
    };
    let body = s.stmts(body, 0, false);
    *counters.entry("temporaries").or_default() += s.temps.len() as u64;
    f.locals = s.f.locals;
    f.body = body;
    Ok(())
}
