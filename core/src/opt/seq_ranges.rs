//! `seq-ranges`: a subscript that is a vector filled once with an arithmetic sequence
//! becomes a range. R's vector style names its index vectors (`I <- 2:(m - 1)`,
//! `b[I, J] <- a[I, J - 1] + ...`); the front end lowers `I` to an allocation and a fill
//! loop, and every `a[I, J - 1]` to a gather through it, which copies element by element
//! and which `slice-views` and `fusion` cannot read in place. A range subscript is what
//! the front end emits for `a[2:(m - 1), ]` written inline: a slice the later passes turn
//! into a view and fuse. Counts `subscripts_to_ranges`: the subscripts rewritten.
//!
//! The sequence is recognised in the front end's form, `(alloc V LEN)` followed at once
//! by `(for (k) (range 1 LEN) (set (index V k) (cast i32 (+ S (* (- k 1) T)))))`; V holds
//! S, S + T, ..., S + (LEN - 1) T, the range `(range S (+ S (* (- LEN 1) T)) T)`. A
//! subscript `(cast i32[...] (+/- (cast f64[...] V) c))` with an integral constant c (R's
//! `J - 1`) is the same range shifted by c.
//!
//! When it holds. Reading V's value at a subscript as "the sequence" needs V, its copies
//! (`(set I V)`) and the scalars S, T, LEN to hold what they held at the fill: each is
//! assigned exactly once, outside every loop (so that assignment runs at most once; the
//! allocation and its fill too), and the subscript is where all of them are certainly
//! assigned (definite assignment). Nothing may change V's elements after the fill: no
//! other element store into V or a copy, none of them passed to a call (a callee may
//! write its array arguments), none assigned to a variable that is not itself such a
//! copy. Only subscripts of reads and stores without NumPy's negative indices or
//! MATLAB's flattening are rewritten.
//!
//! Errors keep their meaning: an index past an extent is an out-of-bounds error either
//! way, and a 0 or negative index (`2:m` with m = 0 is `c(2, 1, 0)`, where R drops the 0)
//! is an out-of-bounds error of index < 1 either way, which the R front end reports as
//! `unsupported` so that R runs the call (frontend::r::bounds).

use super::{sub_exprs_mut, Counters, Pass, PassContext};
use crate::analysis::definite::DefiniteAssignment;
use crate::analysis::{assignments_of, stmt_count, stmt_ids, walk_stmts};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, Expr, Function, LValue, Literal, Stmt, StmtKind};
use crate::vrir::types::{ScalarType, Type};
use std::collections::{BTreeMap, BTreeSet};

pub const SEQ_RANGES: Pass = Pass {
    name: "seq-ranges",
    summary: "subscripts by a vector filled with an arithmetic sequence become ranges",
    run,
};

/// A vector variable's contents: `start`, `start + step`, ... (`len` elements).
#[derive(Clone)]
struct Seq {
    /// The allocated vector whose storage the variable shares (itself, or what it copies).
    root: String,
    start: Expr,
    step: String,
    len: String,
}

impl Seq {
    /// The scalar variables the range reads.
    fn reads(&self) -> Vec<&str> {
        let mut v = vec![self.step.as_str(), self.len.as_str()];
        if let Expr::Var { name } = &self.start {
            v.push(name);
        }
        v
    }

    /// `(range S+c (+ S+c (* (- LEN 1) T)) T)`.
    fn range(&self, shift: i64) -> Expr {
        let bin = |op, l: Expr, r: Expr| Expr::Binary { op, lhs: Box::new(l), rhs: Box::new(r) };
        let start = match (&self.start, shift) {
            (s, 0) => s.clone(),
            (Expr::Const { value: Literal::I64(s) }, c) => Expr::i64(s + c),
            (s, c) => bin(BinOp::Add, s.clone(), Expr::i64(c)),
        };
        let last = bin(
            BinOp::Add,
            start.clone(),
            bin(
                BinOp::Mul,
                bin(BinOp::Sub, Expr::var(&self.len), Expr::i64(1)),
                Expr::var(&self.step),
            ),
        );
        Expr::Range {
            start: Some(Box::new(start)),
            stop: Some(Box::new(last)),
            step: Some(Box::new(Expr::var(&self.step))),
        }
    }
}

fn run(f: &mut Function, _cx: &PassContext, counters: &mut Counters) -> VrResult<()> {
    let in_loop = assigned_in_loops(&f.body);
    let once = |v: &str, f: &Function| -> bool {
        let mut n = 0;
        walk_stmts(&f.body, &mut |s| n += assignments_of(s, v));
        n == 1 && !in_loop.contains(v) && f.locals.iter().any(|l| l.name == v)
    };
    let mut seqs: BTreeMap<String, Seq> = BTreeMap::new();
    find_fills(&f.body, f, &mut seqs);
    seqs.retain(|v, s| once(v, f) && s.reads().iter().all(|r| once(r, f)));
    // Copies `(set I V)`, as often as they chain.
    loop {
        let mut added = false;
        walk_stmts(&f.body, &mut |s| {
            if let StmtKind::Assign { targets, value: Expr::Var { name: src } } = &s.kind {
                if let [LValue::Var { name: dst }] = targets.as_slice() {
                    if let Some(seq) = seqs.get(src).cloned() {
                        if !seqs.contains_key(dst) && f.var_type(dst) == f.var_type(src) {
                            seqs.insert(dst.clone(), seq);
                            added = true;
                        }
                    }
                }
            }
        });
        if !added {
            break;
        }
    }
    seqs.retain(|v, _| once(v, f));
    let unsafe_vars = escaping(&f.body, &seqs);
    seqs.retain(|v, _| !unsafe_vars.contains(v));
    if seqs.is_empty() {
        return Ok(());
    }
    let reach = DefiniteAssignment::compute(f);
    let mut rewriter = Rewriter { seqs: &seqs, reach: &reach, rewritten: 0 };
    let mut body = std::mem::take(&mut f.body);
    rewriter.stmts(&mut body, 0);
    f.body = body;
    *counters.entry("subscripts_to_ranges").or_default() += rewriter.rewritten;
    Ok(())
}

/// Variables some statement inside a loop assigns (loop variables included).
fn assigned_in_loops(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk_stmts(body, &mut |s| {
        if let StmtKind::For { body, vars, .. } | StmtKind::Parfor { body, vars, .. } = &s.kind {
            out.extend(vars.iter().cloned());
            out.extend(crate::analysis::assigned_vars(&body.stmts));
        }
        if let StmtKind::While { body, .. } = &s.kind {
            out.extend(crate::analysis::assigned_vars(&body.stmts));
        }
    });
    out
}

/// Allocations followed by their fill loop, in blocks outside every loop.
fn find_fills(stmts: &[Stmt], f: &Function, out: &mut BTreeMap<String, Seq>) {
    for (j, s) in stmts.iter().enumerate() {
        match &s.kind {
            StmtKind::Alloc { var, dims } => {
                if let (Some(next), [Expr::Var { name: len }]) = (stmts.get(j + 1), dims.as_slice()) {
                    if let Some(seq) = fill(var, len, next, f) {
                        out.insert(var.clone(), seq);
                    }
                }
            }
            StmtKind::Block(b) => find_fills(&b.stmts, f, out),
            StmtKind::If { then, els, .. } => {
                find_fills(&then.stmts, f, out);
                if let Some(e) = els {
                    find_fills(&e.stmts, f, out);
                }
            }
            _ => {}
        }
    }
}

fn int_const(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const { value: Literal::I64(v) } => Some(*v),
        Expr::Const { value: Literal::I32(v) } => Some(*v as i64),
        _ => None,
    }
}

fn is_var(e: &Expr, v: &str) -> bool {
    matches!(e, Expr::Var { name } if name == v)
}

/// `(for (k) (range 1 LEN) (set (index V k) (cast i32 (+ S (* (- k 1) T)))))` for V an
/// i32 vector and S, T, LEN i64 scalars: V's sequence.
fn fill(v: &str, len: &str, s: &Stmt, f: &Function) -> Option<Seq> {
    let i64_scalar = |e: &Expr| match e {
        Expr::Var { name } => f.var_type(name) == Some(&Type::scalar(ScalarType::I64)),
        other => matches!(other, Expr::Const { value: Literal::I64(_) }),
    };
    let Some(Type::Array(vt)) = f.var_type(v) else { return None };
    if vt.elem != ScalarType::I32 || vt.ndims != 1 || !i64_scalar(&Expr::var(len)) {
        return None;
    }
    let StmtKind::For { vars, domain, body } = &s.kind else { return None };
    let [k] = vars.as_slice() else { return None };
    let Expr::Range { start: Some(lo), stop: Some(hi), step } = domain else { return None };
    if int_const(lo) != Some(1) || !is_var(hi, len) || step.as_deref().is_some_and(|t| int_const(t) != Some(1)) {
        return None;
    }
    let [Stmt { kind: StmtKind::Assign { targets, value }, .. }] = body.stmts.as_slice() else { return None };
    let [LValue::Index { array, indices, flags }] = targets.as_slice() else { return None };
    if array != v || flags.negative || flags.flatten || !matches!(indices.as_slice(), [i] if is_var(i, k)) {
        return None;
    }
    let Expr::Cast { to: Type::Scalar { elem: ScalarType::I32 }, arg } = value else { return None };
    let Expr::Binary { op: BinOp::Add, lhs: start, rhs: term } = &**arg else { return None };
    let Expr::Binary { op: BinOp::Mul, lhs: offset, rhs: step } = &**term else { return None };
    let Expr::Binary { op: BinOp::Sub, lhs: kk, rhs: one } = &**offset else { return None };
    let Expr::Var { name: step } = &**step else { return None };
    if !is_var(kk, k) || int_const(one) != Some(1) || !i64_scalar(start) || !i64_scalar(&Expr::var(step)) {
        return None;
    }
    if !matches!(**start, Expr::Var { .. } | Expr::Const { .. }) {
        return None;
    }
    Some(Seq { root: v.to_string(), start: (**start).clone(), step: step.clone(), len: len.to_string() })
}

/// Sequence variables whose elements something other than their fill may change: an
/// element store (but the fill's), a call argument, a view, the value of an assignment
/// to a variable that is not a sequence copy, a `free` or reference count.
fn escaping(body: &[Stmt], seqs: &BTreeMap<String, Seq>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stores: BTreeMap<&str, usize> = BTreeMap::new();
    walk_stmts(body, &mut |s| {
        if let StmtKind::Assign { targets, value } = &s.kind {
            for t in targets {
                match t {
                    LValue::Index { array, .. } if seqs.contains_key(array) => {
                        *stores.entry(array.as_str()).or_default() += 1;
                    }
                    LValue::Var { name } if !seqs.contains_key(name) => {
                        if let Expr::Var { name: src } = value {
                            if seqs.contains_key(src) {
                                out.insert(src.clone());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if let StmtKind::Free { var } | StmtKind::RefDecr { var } | StmtKind::RefIncr { var } = &s.kind {
            out.insert(var.clone());
        }
        for e in crate::analysis::stmt_exprs(s) {
            crate::analysis::walk_expr(e, &mut |x| {
                match x {
                    Expr::Call { args, .. } => {
                        for a in args {
                            if let Expr::Var { name } = a {
                                out.insert(name.clone());
                            }
                        }
                    }
                    // A view shares the vector's storage: writes through it would change it.
                    Expr::Index { array, flags, .. } if flags.view => {
                        if let Expr::Var { name } = &**array {
                            out.insert(name.clone());
                        }
                    }
                    _ => {}
                }
            });
        }
    });
    for (v, n) in stores {
        // The fill's own store, into the allocated vector; a copy has none.
        let filled = seqs.get(v).is_some_and(|s| s.root == v && n == 1);
        if !filled {
            out.insert(v.to_string());
        }
    }
    // Copies share the storage of what they copy: one escaping member spoils its sequence.
    let spoiled: BTreeSet<&str> = seqs
        .iter()
        .filter(|(v, _)| out.contains(*v))
        .map(|(_, s)| s.root.as_str())
        .collect();
    for (v, s) in seqs {
        if spoiled.contains(s.root.as_str()) {
            out.insert(v.clone());
        }
    }
    out
}

struct Rewriter<'a> {
    seqs: &'a BTreeMap<String, Seq>,
    reach: &'a DefiniteAssignment,
    rewritten: u64,
}

impl Rewriter<'_> {
    fn stmts(&mut self, stmts: &mut [Stmt], first: usize) {
        let ids = stmt_ids(stmts, first);
        for (s, sid) in stmts.iter_mut().zip(ids) {
            self.stmt(s, sid);
        }
    }

    fn stmt(&mut self, s: &mut Stmt, sid: usize) {
        match &mut s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets.iter_mut() {
                    if let LValue::Index { indices, flags, .. } = t {
                        if !flags.negative && !flags.flatten {
                            for i in indices.iter_mut() {
                                self.subscript(i, sid);
                            }
                        }
                        for i in indices.iter_mut() {
                            self.expr(i, sid);
                        }
                    }
                }
                self.expr(value, sid);
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond, sid);
                let else_first = sid + 1 + then.stmts.iter().map(stmt_count).sum::<usize>();
                self.stmts(&mut then.stmts, sid + 1);
                if let Some(e) = els {
                    self.stmts(&mut e.stmts, else_first);
                }
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, sid);
                self.stmts(&mut body.stmts, sid + 1);
            }
            StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                self.expr(domain, sid);
                self.stmts(&mut body.stmts, sid + 1);
            }
            StmtKind::Block(b) => self.stmts(&mut b.stmts, sid + 1),
            StmtKind::Return { values } => values.iter_mut().for_each(|v| self.expr(v, sid)),
            StmtKind::Expr { expr } => self.expr(expr, sid),
            StmtKind::Alloc { dims, .. } => dims.iter_mut().for_each(|d| self.expr(d, sid)),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Free { .. }
            | StmtKind::RefIncr { .. }
            | StmtKind::RefDecr { .. } => {}
        }
    }

    fn expr(&mut self, e: &mut Expr, sid: usize) {
        if let Expr::Index { indices, flags, .. } = e {
            if !flags.negative && !flags.flatten {
                for i in indices.iter_mut() {
                    self.subscript(i, sid);
                }
            }
        }
        for c in sub_exprs_mut(e) {
            self.expr(c, sid);
        }
    }

    /// The sequence `e` reads at statement `sid` with its shift, if it is one.
    fn sequence(&self, e: &Expr, sid: usize) -> Option<(Seq, i64)> {
        let (v, shift) = match e {
            Expr::Var { name } => (name, 0),
            Expr::Cast { to: Type::Array(to), arg } if to.elem == ScalarType::I32 => {
                let Expr::Binary { op, lhs, rhs } = &**arg else { return None };
                let Expr::Cast { to: Type::Array(mid), arg: inner } = &**lhs else { return None };
                let Expr::Var { name } = &**inner else { return None };
                let Expr::Const { value: Literal::F64(c) } = &**rhs else { return None };
                if mid.elem != ScalarType::F64 || c.fract() != 0.0 || c.abs() > 1e9 {
                    return None;
                }
                match op {
                    BinOp::Add => (name, *c as i64),
                    BinOp::Sub => (name, -(*c as i64)),
                    _ => return None,
                }
            }
            _ => return None,
        };
        let seq = self.seqs.get(v)?;
        let assigned = std::iter::once(v.as_str())
            .chain(seq.reads())
            .all(|x| self.reach.certainly_assigned(sid, x));
        assigned.then(|| (seq.clone(), shift))
    }

    fn subscript(&mut self, i: &mut Expr, sid: usize) {
        if let Some((seq, shift)) = self.sequence(i, sid) {
            *i = seq.range(shift);
            self.rewritten += 1;
        }
    }
}
