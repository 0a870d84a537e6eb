//! Vectors that grow by assignment, as R's do: `x[length(x) + 1] <- v`, `x[n + 1] <- v`
//! and `x <- c(x, v)`, from an empty start (`c()`, `NULL`, `numeric(0)`) or from a value
//! of length one, in amortised constant time per element.
//!
//! Which variables grow is decided from the source (`from_source`: a variable appended
//! to with the language's idiom, one written through an index that starts empty, one
//! written at an index that reads its own length) and from types (`Lowerer::record`: a
//! variable written through an index that is assigned a scalar is a vector of length
//! one). Every other vector keeps its length: a write past its end fails its bounds
//! check, which the language may explain as "the host has an answer" (R: the call runs
//! in R, which grows the vector). Growing every written vector would cost the loops that
//! fill a preallocated vector their bounds-check elimination and vectorization.
//!
//! Representation: the VRIR variable `x` holds a buffer whose length is the capacity,
//! and the i64 local `_len_x` holds the vector's length. A write past the end doubles
//! the capacity when it must (so n appends copy O(n) elements in all), fills the gap
//! with the missing value (R: NA) and sets the length. Reading `x` as a value gives its
//! first `_len_x` elements (a fresh copy, so nothing aliases the buffer); reading one
//! element is checked against the length, not the capacity.

use super::hir::{Arg, Expr, ExprKind, Line};
use super::lower::{decode_stop_message, LErr, LResult, Lowered, Lowerer};
use super::rules::Language;
use super::types::{wider, Ty};
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, Local, ScalarType, Stmt, StmtKind, Type};
use std::collections::{BTreeSet, HashSet};

/// Reason prefix of an index beyond a vector's length (the variable's name follows,
/// hex-encoded); counts: the index and the length.
pub const BEYOND: &str = "beyond_";
/// Reason prefix of an index below 1; counts: minus the index and the length.
pub const BELOW: &str = "below_";
/// A vector grown past its end whose gap would hold a missing value the element type
/// has none of (R: NA in an integer or logical vector).
pub const GAP_WITHOUT_NA: &str = "growth_gap_na";
/// A variable assigned NULL returned while empty: the host's answer may be NULL.
pub const NULL_RESULT: &str = "null_result";

/// The reason of an index check on variable `name` (`BEYOND` or `BELOW`).
pub fn index_reason(prefix: &str, name: &str) -> String {
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

/// The variable an index-check reason names, and whether it is `BEYOND` (else `BELOW`).
pub fn decode_index_reason(reason: &str) -> Option<(String, bool)> {
    if let Some(hex) = reason.strip_prefix(BEYOND) {
        return Some((decode_stop_message(hex)?, true));
    }
    Some((decode_stop_message(reason.strip_prefix(BELOW)?)?, false))
}

/// Visit `e` and every expression inside it (not the bodies of nested functions).
pub fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, a) => walk(a, f),
        ExprKind::Binary(_, a, b) => {
            walk(a, f);
            walk(b, f);
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| walk(&a.value, f)),
        ExprKind::CallExpr { callee, args } => {
            walk(callee, f);
            args.iter().for_each(|a| walk(&a.value, f));
        }
        ExprKind::Index { target, indices, .. } => {
            walk(target, f);
            indices.iter().flatten().for_each(|i| walk(i, f));
        }
        ExprKind::Block(items) => items.iter().for_each(|i| walk(i, f)),
        ExprKind::If { cond, then, els } => {
            walk(cond, f);
            walk(then, f);
            if let Some(e) = els {
                walk(e, f);
            }
        }
        ExprKind::For { seq, body, .. } => {
            walk(seq, f);
            walk(body, f);
        }
        ExprKind::While { cond, body } => {
            walk(cond, f);
            walk(body, f);
        }
        ExprKind::Repeat(body) => walk(body, f),
        ExprKind::Tuple(items) => items.iter().for_each(|i| walk(i, f)),
        ExprKind::Assign { target, value } => {
            walk(target, f);
            walk(value, f);
        }
        ExprKind::MultiAssign { targets, value } => {
            targets.iter().flatten().for_each(|t| walk(t, f));
            walk(value, f);
        }
        _ => {}
    }
}

/// The variables of a function body that grow, as far as the source shows (`written`:
/// those written through an index), and those assigned the language's NULL.
pub fn from_source(lang: &dyn Language, body: &Expr, written: &HashSet<String>) -> (BTreeSet<String>, HashSet<String>) {
    let mut growable = BTreeSet::new();
    let mut empty_start = HashSet::new();
    let mut nullable = HashSet::new();
    walk(body, &mut |e| {
        let ExprKind::Assign { target, value } = &e.kind else { return };
        match &target.kind {
            ExprKind::Var(n) => {
                if lang.appended(value, n).is_some() {
                    growable.insert(n.clone());
                }
                if lang.is_empty_vector(value) {
                    empty_start.insert(n.clone());
                }
                if lang.is_null(value) {
                    nullable.insert(n.clone());
                }
            }
            ExprKind::Index { target: t, indices, .. } => {
                if let ExprKind::Var(n) = &t.kind {
                    let mut reads_length = false;
                    for ix in indices.iter().flatten() {
                        walk(ix, &mut |s| reads_length |= lang.length_of(s) == Some(n.as_str()));
                    }
                    if reads_length {
                        growable.insert(n.clone());
                    }
                }
            }
            _ => {}
        }
    });
    growable.extend(empty_start.into_iter().filter(|n| written.contains(n)));
    (growable, nullable)
}

/// A scalar as a vector of length one (R's values are all vectors).
pub fn vector_of_one(v: Lowered, layout: vrir::Layout) -> Lowered {
    if v.ty.rank > 0 {
        return v;
    }
    let elem = v.ty.elem;
    let ty = ArrayType::new(elem, 1, layout);
    Lowered::new(vrir::Expr::Alloc { init: AllocInit::Fill { value: Box::new(v.expr) }, ty, dims: vec![vrir::Expr::i64(1)] }, Ty::array(elem, 1))
}

fn i64c(v: i64) -> vrir::Expr {
    vrir::Expr::i64(v)
}

fn bin(op: vrir::BinOp, a: vrir::Expr, b: vrir::Expr) -> vrir::Expr {
    vrir::Expr::binary(op, a, b)
}

fn len_of(e: vrir::Expr) -> vrir::Expr {
    vrir::Expr::Lib { func: LibFn::Len, args: vec![e] }
}

fn range(start: vrir::Expr, stop: vrir::Expr) -> vrir::Expr {
    vrir::Expr::Range { start: Some(Box::new(start)), stop: Some(Box::new(stop)), step: None }
}

fn assign(target: LValue, value: vrir::Expr, line: Line) -> Stmt {
    Stmt { kind: StmtKind::Assign { targets: vec![target], value }, line: Some(line) }
}

impl Lowerer<'_> {
    fn length_name(&self, name: &str) -> String {
        format!("_len_{}", self.prog.lang.vrir_name(name))
    }

    /// Is `name` a vector that grows by assignment here?
    pub fn is_growable(&self, name: &str) -> bool {
        self.growable.contains(name) && self.vars.get(name).is_some_and(|t| t.rank == 1)
    }

    /// The length (an i64 expression) of a growable vector, without copying it.
    pub fn growable_length(&self, name: &str) -> Option<vrir::Expr> {
        self.is_growable(name).then(|| vrir::Expr::var(self.length_name(name)))
    }

    /// A growable vector read as a value: its first `_len` elements, copied.
    pub(super) fn growable_value(&mut self, name: &str, t: Ty) -> Lowered {
        let buffer = vrir::Expr::var(self.prog.lang.vrir_name(name));
        let read =
            vrir::Expr::Index { array: Box::new(buffer), indices: vec![range(i64c(1), vrir::Expr::var(self.length_name(name)))], flags: IndexFlags::default() };
        Lowered::new(read, t)
    }

    /// After `name` was assigned as a whole: its length is its buffer's.
    pub(super) fn set_length_after_assign(&mut self, name: &str) {
        if self.is_growable(name) {
            let buffer = vrir::Expr::var(self.prog.lang.vrir_name(name));
            let n = self.length_name(name);
            self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: n }], value: len_of(buffer) });
        }
    }

    /// At entry: growable variables that are not arguments start with length 0.
    pub(super) fn start_lengths<T>(&mut self, args: &[Option<T>]) {
        let given: HashSet<String> = self.def_params().iter().zip(args).filter(|(_, a)| a.is_some()).map(|(p, _)| p.clone()).collect();
        let names: Vec<String> = self.growable.iter().filter(|n| self.is_growable(n) && !given.contains(*n)).cloned().collect();
        for n in names {
            let l = self.length_name(&n);
            self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: l }], value: i64c(0) });
        }
    }

    /// The length locals of the growable vectors.
    pub(super) fn length_locals(&self) -> Vec<Local> {
        self.growable.iter().filter(|n| self.is_growable(n)).map(|n| Local { name: self.length_name(n), ty: Type::I64 }).collect()
    }

    /// The scalar index `e` as a hoisted i64, or None when `e` is not a single number
    /// (a sequence, a vector, an excluding or zero index: those go the general way).
    pub(super) fn scalar_subscript(&mut self, e: &Expr, line: Line) -> Option<LResult<vrir::Expr>> {
        let lang = self.prog.lang;
        if lang.is_exclusion(e) || super::lower::is_zero_literal(e) {
            return None;
        }
        let mark = self.pre_mut().len();
        if let Some(p) = lang.seq(self, e) {
            self.pre_mut().truncate(mark);
            return match p {
                Err(LErr::NotYet) => Some(Err(LErr::NotYet)),
                _ => None,
            };
        }
        let v = match self.expr(e) {
            Ok(v) => v,
            Err(err) => return Some(Err(err)),
        };
        if v.ty.rank != 0 {
            self.pre_mut().truncate(mark);
            return None;
        }
        let elem = v.ty.elem;
        let i = match lang.index_value(self, v, line) {
            Ok(i) => i,
            Err(err) => return Some(Err(err)),
        };
        let i = if elem == ScalarType::I32 {
            self.cast(Lowered::new(i, Ty::scalar(ScalarType::I32)), ScalarType::I64)
        } else {
            Lowered::new(i, Ty::scalar(ScalarType::I64))
        };
        Some(Ok(self.hoist(i).expr))
    }

    /// Raise when index `i` (hoisted i64) is outside 1..=`len` of variable `name`:
    /// reasons `BEYOND` and `BELOW`, which carry the index and the length.
    pub(super) fn check_position(&mut self, name: &str, i: &vrir::Expr, len: vrir::Expr) {
        let beyond = index_reason(BEYOND, name);
        self.raise_if_counts(bin(vrir::BinOp::Gt, i.clone(), len.clone()), &beyond, [i.clone(), len.clone()]);
        let below = index_reason(BELOW, name);
        let minus = vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(i.clone()) };
        self.raise_if_counts(bin(vrir::BinOp::Lt, i.clone(), i64c(1)), &below, [minus, len]);
    }

    /// `x[i]` of a growable vector with one scalar index: the element, checked against
    /// the vector's length. None for other subscripts, which read the vector's current
    /// elements (`growable_value`).
    pub(super) fn growable_element(&mut self, name: &str, indices: &[Option<Expr>], line: Line) -> Option<LResult<Lowered>> {
        let [Some(e)] = indices else { return None };
        let i = match self.scalar_subscript(e, line)? {
            Ok(i) => i,
            Err(err) => return Some(Err(err)),
        };
        let t = self.vars[name];
        let len = vrir::Expr::var(self.length_name(name));
        self.check_position(name, &i, len);
        let buffer = vrir::Expr::var(self.prog.lang.vrir_name(name));
        Some(Ok(Lowered::new(vrir::Expr::Index { array: Box::new(buffer), indices: vec![i], flags: IndexFlags::default() }, Ty::scalar(t.elem))))
    }

    /// Growth reassigns the buffer, which the iterations of a parallel loop would each
    /// do on their own copy of the variable: refused there.
    fn check_serial(&self, name: &str, line: Line) -> LResult<()> {
        if self.parallel_depth > 0 {
            return Err(self.unsupported(&format!("`{name}` grown in a parallel loop"), line, "its iterations must be independent; grow it in a serial loop"));
        }
        Ok(())
    }

    /// Make the buffer of `name` hold at least `needed` (an i64 expression) elements:
    /// when it is too short, a new one of twice the length (or `needed`) takes its
    /// elements.
    fn reserve(&mut self, name: &str, elem: ScalarType, needed: vrir::Expr) {
        let line = self.line;
        let x = self.prog.lang.vrir_name(name);
        let len = vrir::Expr::var(self.length_name(name));
        let ty = Ty::array(elem, 1);
        let t = self.temp(&ty.vrir(self.layout()));
        let cap = vrir::Expr::Lib { func: LibFn::Max, args: vec![needed.clone(), bin(vrir::BinOp::Mul, i64c(2), len_of(vrir::Expr::var(&x)))] };
        let alloc = vrir::Expr::Alloc { init: AllocInit::Empty, ty: ArrayType::new(elem, 1, self.layout()), dims: vec![cap] };
        let old = vrir::Expr::Index {
            array: Box::new(vrir::Expr::var(&x)),
            indices: vec![range(i64c(1), len.clone())],
            flags: IndexFlags { view: true, ..IndexFlags::default() },
        };
        let stmts = vec![
            assign(LValue::Var { name: t.clone() }, alloc, line),
            assign(LValue::Index { array: t.clone(), indices: vec![range(i64c(1), len)], flags: IndexFlags::default() }, old, line),
            assign(LValue::Var { name: x.clone() }, vrir::Expr::var(&t), line),
        ];
        let short = bin(vrir::BinOp::Gt, needed, len_of(vrir::Expr::var(&x)));
        self.emit(StmtKind::If { cond: short, then: Block { on_gpu: false, stmts }, els: None });
    }

    /// `x[i] <- v` on a growable vector with one scalar index: grows it when `i` is past
    /// its end (the gap holds missing values), then stores. None for other subscripts.
    pub(super) fn grow_and_store(&mut self, name: &str, at: Ty, indices: &[Option<Expr>], v: Lowered, line: Line, out: &mut Vec<Stmt>) -> Option<LResult<()>> {
        let [Some(e)] = indices else { return None };
        let i = match self.scalar_subscript(e, line)? {
            Ok(i) => i,
            Err(err) => return Some(Err(err)),
        };
        if v.ty.rank > 0 {
            return Some(Err(self.unsupported(
                &format!("assignment into `{name}[...]`"),
                line,
                &format!("a {} into one element: the value must be a scalar", v.ty),
            )));
        }
        if let Err(e) = self.check_serial(name, line) {
            return Some(Err(e));
        }
        let v = self.cast(v, at.elem);
        let v = self.hoist(v);
        let x = self.prog.lang.vrir_name(name);
        let len_name = self.length_name(name);
        let len = vrir::Expr::var(&len_name);
        let below = index_reason(BELOW, name);
        let minus = vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(i.clone()) };
        self.raise_if_counts(bin(vrir::BinOp::Lt, i.clone(), i64c(1)), &below, [minus, len.clone()]);
        // The growth, built apart and placed under `if (i > len)`.
        let outer = std::mem::take(self.pre_mut());
        self.reserve(name, at.elem, i.clone());
        let last_gap = bin(vrir::BinOp::Sub, i.clone(), i64c(1));
        let has_gap = bin(vrir::BinOp::Gt, last_gap.clone(), len.clone());
        match self.prog.lang.missing_value(at.elem) {
            Some(na) => {
                let fill = assign(
                    LValue::Index {
                        array: x.clone(),
                        indices: vec![range(bin(vrir::BinOp::Add, len.clone(), i64c(1)), last_gap)],
                        flags: IndexFlags::default(),
                    },
                    vrir::Expr::lit(na),
                    line,
                );
                self.emit(StmtKind::If { cond: has_gap, then: Block { on_gpu: false, stmts: vec![fill] }, els: None });
            }
            None => self.raise_if(has_gap, GAP_WITHOUT_NA),
        }
        self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: len_name }], value: i.clone() });
        let growth = std::mem::replace(self.pre_mut(), outer);
        self.emit(StmtKind::If { cond: bin(vrir::BinOp::Gt, i.clone(), len), then: Block { on_gpu: false, stmts: growth }, els: None });
        self.emit(StmtKind::Assign { targets: vec![LValue::Index { array: x, indices: vec![i], flags: IndexFlags::default() }], value: v.expr });
        out.append(self.pre_mut());
        Some(Ok(()))
    }

    /// `x <- c(x, parts...)` on a growable vector: the parts are stored after its end,
    /// growing the buffer when it must.
    pub(super) fn append(&mut self, name: &str, parts: &[Arg], line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let at = self.var_type(name, line)?;
        self.check_serial(name, line)?;
        let mut values = Vec::new();
        let mut elem = at.elem;
        for a in parts {
            if a.name.is_some() {
                return Err(self.unsupported("named element of `c(...)`", line, "names do not compile"));
            }
            let v = self.expr(&a.value)?;
            if v.ty.rank > 1 {
                return Err(self.unsupported("`c(...)` of a matrix", line, "compiled `c` joins scalars and vectors"));
            }
            elem = wider(elem, v.ty.elem);
            let v = self.hoist(v);
            values.push(v);
        }
        self.record(name, Ty::array(elem, 1), line)?;
        let x = self.prog.lang.vrir_name(name);
        let len_name = self.length_name(name);
        let len = vrir::Expr::var(&len_name);
        for v in values {
            let scalar = v.ty.rank == 0;
            let k = if scalar { i64c(1) } else { len_of(v.expr.clone()) };
            let v = self.cast(v, at.elem);
            let end = self.hoist(Lowered::new(bin(vrir::BinOp::Add, len.clone(), k), Ty::scalar(ScalarType::I64))).expr;
            self.reserve(name, at.elem, end.clone());
            let index = if scalar { end.clone() } else { range(bin(vrir::BinOp::Add, len.clone(), i64c(1)), end.clone()) };
            self.emit(StmtKind::Assign {
                targets: vec![LValue::Index { array: x.clone(), indices: vec![index], flags: IndexFlags::default() }],
                value: v.expr,
            });
            self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: len_name.clone() }], value: end });
        }
        out.append(self.pre_mut());
        Ok(())
    }

    /// Before a write through any other subscript: the buffer becomes exactly the
    /// vector's elements, so that the write's own bounds check is against the length.
    pub(super) fn fit_length(&mut self, name: &str) -> LResult<()> {
        let line = self.line;
        self.check_serial(name, line)?;
        let x = self.prog.lang.vrir_name(name);
        let len = vrir::Expr::var(self.length_name(name));
        let prefix = vrir::Expr::Index { array: Box::new(vrir::Expr::var(&x)), indices: vec![range(i64c(1), len.clone())], flags: IndexFlags::default() };
        let longer = bin(vrir::BinOp::Ne, len, len_of(vrir::Expr::var(&x)));
        self.emit(StmtKind::If { cond: longer, then: Block { on_gpu: false, stmts: vec![assign(LValue::Var { name: x }, prefix, line)] }, els: None });
        Ok(())
    }

    /// Before `e` (lowered to `v`) is the function's value: a variable that was assigned
    /// NULL and is empty may be NULL in the host, which compiled code cannot return.
    pub(super) fn null_guard(&mut self, e: &Expr, v: &Lowered) {
        let ExprKind::Var(name) = &e.kind else { return };
        if !self.nullable.contains(name) || v.ty.rank == 0 {
            return;
        }
        let n = self.growable_length(name).unwrap_or_else(|| len_of(v.expr.clone()));
        self.raise_if(bin(vrir::BinOp::Eq, n, i64c(0)), NULL_RESULT);
    }
}
