//! The work of one parfor, estimated from its VRIR: operations and bytes of array
//! elements touched, evaluated when the task is reached, with the values the CPU has
//! computed by then (the domain the engine was given, the kernel's scalar arguments,
//! the extents of its arrays).
//!
//! The count is static in shape and dynamic in size: each statement and expression has
//! a weight (an add, a compare or a cast 1; a division, `sqrt` or `rem` 4; `exp`, `log`,
//! the trigonometric functions and `pow` 16; an element read or write 1 plus its bytes),
//! a loop multiplies its body by its trip count, an `if` costs its condition and the
//! dearer branch, a call of a module function costs its body with the call's arguments
//! bound. Trip counts come from the loop's range evaluated with what is known (constants,
//! scalars the kernel is passed, `dim` of its arrays, loop variables at the middle of
//! their ranges, locals assigned such values); a `while` whose condition bounds a
//! counter that its body steps by a constant (`(< count cutoff)` with `(set count (+
//! count 1))`) runs that bound's number of times. A trip count that cannot be evaluated is
//! [`GUESSED_TRIPS`] and the estimate says it was guessed.
//!
//! Why weights and not measured costs of each operation: the placement model only
//! compares the same count on two processors, each calibrated with a kernel counted by
//! this same code (`driver/calibrate.rs`), so the weights only need the right proportions
//! between cheap and dear operations, not absolute times.

use crate::runtime::offload::elem_size;
use crate::vrir::ast::{BinOp, Expr, Function, LValue, LibFn, Literal, Module, Stmt, StmtKind, UnOp};
use crate::vrir::types::Type;
use std::collections::HashMap;

/// Trip count of a loop whose bounds cannot be evaluated when the task is reached.
pub const GUESSED_TRIPS: f64 = 16.0;

/// Calls nested deeper than this (recursion) count as one guessed loop of ops.
const MAX_CALL_DEPTH: usize = 6;

/// What a parfor costs, evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Weighted operations (see the module doc).
    pub ops: f64,
    /// Bytes of array elements read and written.
    pub bytes: f64,
    /// Some trip count was [`GUESSED_TRIPS`].
    pub guessed: bool,
}

impl Cost {
    fn ops(ops: f64) -> Cost {
        Cost { ops, ..Cost::default() }
    }
    fn add(&mut self, o: Cost) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.guessed |= o.guessed;
    }
    fn times(self, n: f64) -> Cost {
        Cost { ops: self.ops * n, bytes: self.bytes * n, guessed: self.guessed }
    }
    fn max(self, o: Cost) -> Cost {
        let mut m = if o.ops + o.bytes > self.ops + self.bytes { o } else { self };
        m.guessed = self.guessed || o.guessed;
        m
    }
}

/// A parfor statement and what its estimate needs of the module: the functions it
/// calls and the element sizes of the arrays it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Work {
    parfor: Stmt,
    /// Element bytes of each array variable of the parfor's function.
    arrays: HashMap<String, usize>,
    callees: HashMap<String, Callee>,
}

#[derive(Clone, Debug, PartialEq)]
struct Callee {
    params: Vec<String>,
    body: Vec<Stmt>,
    arrays: HashMap<String, usize>,
}

fn array_sizes(f: &Function) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let vars = f.params.iter().map(|p| (&p.name, &p.ty));
    for (name, ty) in vars.chain(f.locals.iter().map(|l| (&l.name, &l.ty))) {
        if let Type::Array(a) = ty {
            out.insert(name.clone(), elem_size(a.elem));
        }
    }
    out
}

/// Values known while walking: scalars by name.
pub struct Known<'a> {
    values: HashMap<String, f64>,
    /// `dim` of an array variable, when the task was given the array.
    dims: &'a dyn Fn(&str, u32) -> Option<f64>,
    /// Trip counts and middle values of loop variables the engine counted itself (the
    /// kernel's domain).
    trips: HashMap<String, (f64, f64)>,
}

impl<'a> Known<'a> {
    pub fn new(dims: &'a dyn Fn(&str, u32) -> Option<f64>) -> Known<'a> {
        Known { values: HashMap::new(), dims, trips: HashMap::new() }
    }
    /// A scalar's value when the task is reached.
    pub fn set(&mut self, name: &str, v: f64) {
        self.values.insert(name.to_string(), v);
    }
    /// The engine's count for the loop over `var` (a dimension of the kernel's domain)
    /// and the value in the middle of its range (what the body's own ranges see).
    pub fn trips(&mut self, var: &str, count: f64, middle: f64) {
        self.trips.insert(var.to_string(), (count, middle));
    }
}

impl Work {
    /// The work of parfor `s` of `f` in `m`.
    pub fn of(m: &Module, f: &Function, s: &Stmt) -> Work {
        let mut callees = HashMap::new();
        let mut pending = Vec::new();
        calls_in_stmt(s, &mut pending);
        while let Some(name) = pending.pop() {
            if callees.contains_key(&name) {
                continue;
            }
            if let Some(g) = m.function(&name) {
                for st in &g.body {
                    calls_in_stmt(st, &mut pending);
                }
                callees.insert(
                    name,
                    Callee {
                        params: g.params.iter().map(|p| p.name.clone()).collect(),
                        body: g.body.clone(),
                        arrays: array_sizes(g),
                    },
                );
            }
        }
        Work { parfor: s.clone(), arrays: array_sizes(f), callees }
    }

    /// The cost of the whole parfor (every iteration) with what `known` holds.
    pub fn evaluate(&self, known: &mut Known) -> Cost {
        let mut w = Walk { work: self, depth: 0 };
        w.stmt(&self.parfor, known, &self.arrays)
    }
}

struct Walk<'w> {
    work: &'w Work,
    depth: usize,
}

fn calls_in_stmt(s: &Stmt, out: &mut Vec<String>) {
    let mut exprs: Vec<&Expr> = Vec::new();
    let mut blocks: Vec<&[Stmt]> = Vec::new();
    match &s.kind {
        StmtKind::Block(b) => blocks.push(&b.stmts),
        StmtKind::Assign { targets, value } => {
            exprs.push(value);
            for t in targets {
                if let LValue::Index { indices, .. } = t {
                    exprs.extend(indices);
                }
            }
        }
        StmtKind::If { cond, then, els } => {
            exprs.push(cond);
            blocks.push(&then.stmts);
            if let Some(e) = els {
                blocks.push(&e.stmts);
            }
        }
        StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
            exprs.push(domain);
            blocks.push(&body.stmts);
        }
        StmtKind::While { cond, body } => {
            exprs.push(cond);
            blocks.push(&body.stmts);
        }
        StmtKind::Return { values } => exprs.extend(values),
        StmtKind::Expr { expr } => exprs.push(expr),
        _ => {}
    }
    for e in exprs {
        calls_in_expr(e, out);
    }
    for b in blocks {
        for st in b {
            calls_in_stmt(st, out);
        }
    }
}

fn calls_in_expr(e: &Expr, out: &mut Vec<String>) {
    if let Expr::Call { func, .. } | Expr::Map { func, .. } = e {
        out.push(func.clone());
    }
    for_each_child(e, &mut |c| calls_in_expr(c, out));
}

fn for_each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match e {
        Expr::Const { .. } | Expr::Var { .. } => {}
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::Dim { arg, .. } => f(arg),
        Expr::Reduce { arg, .. } | Expr::Scan { arg, .. } | Expr::TupleGet { arg, .. } => f(arg),
        Expr::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        Expr::Call { args, .. } | Expr::Lib { args, .. } | Expr::Map { args, .. } => {
            args.iter().for_each(&mut *f)
        }
        Expr::Alloc { dims, .. } => dims.iter().for_each(&mut *f),
        Expr::Range { start, stop, step } => {
            for x in [start, stop, step].into_iter().flatten() {
                f(x);
            }
        }
        Expr::Domain { ranges } => ranges.iter().for_each(&mut *f),
        Expr::Tuple { items } => items.iter().for_each(&mut *f),
        Expr::Index { array, indices, .. } => {
            f(array);
            indices.iter().for_each(&mut *f);
        }
        Expr::AtomicAdd { indices, value, .. } => {
            indices.iter().for_each(&mut *f);
            f(value);
        }
        Expr::AtomicCas { indices, expected, new, .. } => {
            indices.iter().for_each(&mut *f);
            f(expected);
            f(new);
        }
    }
}

/// The value of a scalar expression, when everything it reads is known.
fn value(e: &Expr, k: &Known) -> Option<f64> {
    Some(match e {
        Expr::Const { value } => match value {
            Literal::Bool(b) => *b as i64 as f64,
            Literal::I32(x) => *x as f64,
            Literal::I64(x) => *x as f64,
            Literal::F32(x) => *x as f64,
            Literal::F64(x) => *x,
            _ => return None,
        },
        Expr::Var { name } => *k.values.get(name)?,
        Expr::Cast { arg, .. } => value(arg, k)?,
        Expr::Unary { op: UnOp::Neg, arg } => -value(arg, k)?,
        Expr::Binary { op, lhs, rhs } => {
            let (a, b) = (value(lhs, k)?, value(rhs, k)?);
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div if b != 0.0 => a / b,
                BinOp::IDiv if b != 0.0 => (a / b).floor(),
                _ => return None,
            }
        }
        Expr::Lib { func: LibFn::Min, args } => value(&args[0], k)?.min(value(&args[1], k)?),
        Expr::Lib { func: LibFn::Max, args } => value(&args[0], k)?.max(value(&args[1], k)?),
        Expr::Lib { func: LibFn::Sqrt, args } => value(&args[0], k)?.sqrt(),
        Expr::Dim { arg, axis } => match &**arg {
            Expr::Var { name } => (k.dims)(name, *axis)?,
            _ => return None,
        },
        _ => return None,
    })
}

/// Trip count of a domain and, per loop variable, its middle value.
fn trips(domain: &Expr, vars: &[String], k: &Known) -> (f64, Vec<Option<f64>>, bool) {
    let ranges: Vec<&Expr> = match domain {
        Expr::Domain { ranges } => ranges.iter().collect(),
        other => vec![other],
    };
    let mut total = 1.0;
    let mut mids = Vec::new();
    let mut guessed = false;
    for (d, r) in ranges.iter().enumerate() {
        if let Some((n, mid)) = vars.get(d).and_then(|v| k.trips.get(v)) {
            total *= n;
            mids.push(Some(*mid));
            continue;
        }
        let counted = match r {
            Expr::Range { start, stop, step } => {
                let start = start.as_deref().map_or(Some(0.0), |e| value(e, k));
                let stop = stop.as_deref().and_then(|e| value(e, k));
                let step = step.as_deref().map_or(Some(1.0), |e| value(e, k));
                match (start, stop, step) {
                    (Some(a), Some(b), Some(s)) if s != 0.0 => {
                        let n = (((b - a) / s).floor() + 1.0).max(0.0);
                        Some((n, a + s * ((n - 1.0) / 2.0).floor().max(0.0)))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match counted {
            Some((n, mid)) => {
                total *= n;
                mids.push(Some(mid));
            }
            None => {
                total *= GUESSED_TRIPS;
                mids.push(None);
                guessed = true;
            }
        }
    }
    (total, mids, guessed)
}

/// `(< v BOUND)`-style tests in an `and` chain: (counter, bound expression, inclusive).
fn counter_tests<'e>(cond: &'e Expr, out: &mut Vec<(&'e str, &'e Expr, bool)>) {
    if let Expr::Binary { op, lhs, rhs } = cond {
        match (op, &**lhs, &**rhs) {
            (BinOp::And, _, _) => {
                counter_tests(lhs, out);
                counter_tests(rhs, out);
            }
            (BinOp::Lt | BinOp::Le, Expr::Var { name }, bound) => {
                out.push((name, bound, *op == BinOp::Le))
            }
            (BinOp::Gt | BinOp::Ge, bound, Expr::Var { name }) => {
                out.push((name, bound, *op == BinOp::Ge))
            }
            _ => {}
        }
    }
}

/// The constant step of `(set v (+ v C))` anywhere in `body`.
fn counter_step(body: &[Stmt], v: &str) -> Option<f64> {
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, value: e } => {
                if let ([LValue::Var { name }], Expr::Binary { op: BinOp::Add, lhs, rhs }) =
                    (targets.as_slice(), e)
                {
                    if name == v {
                        if let (Expr::Var { name: n }, Expr::Const { .. }) = (&**lhs, &**rhs) {
                            let empty = Known { values: HashMap::new(), dims: &|_, _| None, trips: HashMap::new() };
                            if n == v {
                                return value(rhs, &empty).filter(|c| *c > 0.0);
                            }
                        }
                    }
                }
            }
            StmtKind::Block(b) => {
                if let Some(c) = counter_step(&b.stmts, v) {
                    return Some(c);
                }
            }
            _ => {}
        }
    }
    None
}

fn lib_weight(f: LibFn) -> f64 {
    match f {
        LibFn::Sqrt | LibFn::Rem => 4.0,
        LibFn::Exp
        | LibFn::Log
        | LibFn::Log10
        | LibFn::Sin
        | LibFn::Cos
        | LibFn::Tan
        | LibFn::Asin
        | LibFn::Acos
        | LibFn::Atan
        | LibFn::Sinh
        | LibFn::Cosh
        | LibFn::Tanh
        | LibFn::Expm1
        | LibFn::Atan2
        | LibFn::Pow => 16.0,
        _ => 1.0,
    }
}

impl Walk<'_> {
    fn block(&mut self, stmts: &[Stmt], k: &mut Known, arrays: &HashMap<String, usize>) -> Cost {
        let mut c = Cost::default();
        for s in stmts {
            c.add(self.stmt(s, k, arrays));
        }
        c
    }

    fn element(&mut self, array: &str, indices: &[Expr], k: &mut Known, arrays: &HashMap<String, usize>) -> Cost {
        let mut c = Cost::ops(1.0);
        c.bytes += arrays.get(array).copied().unwrap_or(8) as f64;
        for i in indices {
            c.add(self.expr(i, k, arrays));
        }
        c
    }

    fn stmt(&mut self, s: &Stmt, k: &mut Known, arrays: &HashMap<String, usize>) -> Cost {
        match &s.kind {
            StmtKind::Block(b) => self.block(&b.stmts, k, arrays),
            StmtKind::Assign { targets, value: e } => {
                let mut c = self.expr(e, k, arrays);
                for t in targets {
                    match t {
                        LValue::Index { array, indices, .. } => {
                            c.add(self.element(array, indices, k, arrays))
                        }
                        LValue::Var { name } => match (targets.len(), value(e, k)) {
                            (1, Some(v)) => k.set(name, v),
                            _ => {
                                k.values.remove(name);
                            }
                        },
                    }
                }
                c
            }
            StmtKind::If { cond, then, els } => {
                let mut c = self.expr(cond, k, arrays);
                let t = self.block(&then.stmts, k, arrays);
                let e = els.as_ref().map(|b| self.block(&b.stmts, k, arrays)).unwrap_or_default();
                c.add(t.max(e));
                c
            }
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                let (n, mids, guessed) = trips(domain, vars, k);
                for (v, m) in vars.iter().zip(mids) {
                    match m {
                        Some(m) => k.set(v, m),
                        None => {
                            k.values.remove(v);
                        }
                    }
                }
                let mut per = self.block(&body.stmts, k, arrays);
                per.ops += 1.0;
                let mut c = per.times(n);
                c.guessed |= guessed;
                c
            }
            StmtKind::While { cond, body } => {
                let mut tests = Vec::new();
                counter_tests(cond, &mut tests);
                let bounded = tests.iter().find_map(|(v, bound, inclusive)| {
                    let step = counter_step(&body.stmts, v)?;
                    let (start, end) = (*k.values.get(*v)?, value(bound, k)?);
                    Some((((end - start) / step).ceil() + *inclusive as i64 as f64).max(0.0))
                });
                let mut per = self.expr(cond, k, arrays);
                per.add(self.block(&body.stmts, k, arrays));
                let mut c = per.times(bounded.unwrap_or(GUESSED_TRIPS));
                c.guessed |= bounded.is_none();
                c
            }
            StmtKind::Return { values } => {
                let mut c = Cost::default();
                for v in values {
                    c.add(self.expr(v, k, arrays));
                }
                c
            }
            StmtKind::Expr { expr } => self.expr(expr, k, arrays),
            _ => Cost::ops(1.0),
        }
    }

    fn expr(&mut self, e: &Expr, k: &mut Known, arrays: &HashMap<String, usize>) -> Cost {
        let mut c = match e {
            Expr::Const { .. } | Expr::Var { .. } | Expr::Dim { .. } => return Cost::default(),
            Expr::Unary { .. } | Expr::Cast { .. } => Cost::ops(1.0),
            Expr::Binary { op, .. } => Cost::ops(match op {
                BinOp::Div | BinOp::IDiv | BinOp::Mod => 4.0,
                _ => 1.0,
            }),
            Expr::Lib { func, .. } => Cost::ops(lib_weight(*func)),
            Expr::Index { array, indices, .. } => {
                if let Expr::Var { name } = &**array {
                    return self.element(name, indices, k, arrays);
                }
                Cost::ops(1.0)
            }
            Expr::AtomicAdd { array, indices, value: v } | Expr::AtomicCas { array, indices, new: v, .. } => {
                let mut c = self.element(array, indices, k, arrays);
                c.ops += 4.0;
                c.add(self.expr(v, k, arrays));
                return c;
            }
            Expr::Call { func, args } => return self.call(func, args, k, arrays),
            _ => Cost::ops(1.0),
        };
        for_each_child(e, &mut |x| c.add(self.expr(x, k, arrays)));
        c
    }

    fn call(&mut self, func: &str, args: &[Expr], k: &mut Known, arrays: &HashMap<String, usize>) -> Cost {
        let mut c = Cost::ops(1.0);
        for a in args {
            c.add(self.expr(a, k, arrays));
        }
        let work = self.work;
        let Some(g) = work.callees.get(func) else {
            return c;
        };
        if self.depth >= MAX_CALL_DEPTH {
            c.ops += GUESSED_TRIPS;
            c.guessed = true;
            return c;
        }
        let mut inner = Known { values: HashMap::new(), dims: k.dims, trips: HashMap::new() };
        for (p, a) in g.params.iter().zip(args) {
            if let Some(v) = value(a, k) {
                inner.set(p, v);
            }
        }
        self.depth += 1;
        c.add(self.block(&g.body, &mut inner, &g.arrays));
        self.depth -= 1;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::parse_module;

    fn work_of(src: &str, func: &str) -> Work {
        let m = parse_module(src).unwrap();
        let f = m.function(func).unwrap();
        let s = f.body.iter().find(|s| matches!(s.kind, StmtKind::Parfor { .. })).unwrap();
        Work::of(&m, f, s)
    }

    #[test]
    fn element_wise_loop_counts_each_iteration() {
        // y[i] = a * x[i] + y[i]: 2 arithmetic ops, 3 element accesses (1 op, 8 bytes each),
        // 1 for the loop: 6 ops and 24 bytes an iteration, 100 iterations.
        let w = work_of(
            "(module m :index-base 0 (function f ((x f64[1,row]) (y f64[1,row]) (a f64)) () (locals (i i64))
               (parfor (i) (range 0 99) (block (set (index y i) (+ (* a (index x i)) (index y i)))))))",
            "f",
        );
        let dims = |_: &str, _: u32| None;
        let c = w.evaluate(&mut Known::new(&dims));
        assert_eq!((c.ops, c.bytes, c.guessed), (600.0, 2400.0, false));
    }

    #[test]
    fn bounds_come_from_scalars_dims_and_counted_whiles() {
        // julia-like: n from dim, an inner loop over n, a call whose while loop steps a
        // counter up to `cutoff` (scalar argument 50).
        let src = "(module m :index-base 0
          (function g ((c i64)) (i64) (locals (k i64) (z f64))
            (set k 0) (set z 0.0)
            (while (and (< z 4.0) (< k c)) (block (set z (+ (* z z) 0.5)) (set k (+ k 1))))
            (return k))
          (function f ((out i64[2,row]) (cutoff i64)) () (locals (i i64) (j i64) (n i64))
            (set n (dim out 0))
            (parfor (i) (range 0 (- n 1))
              (block (for (j) (range 0 (- n 1)) (block (set (index out i j) (call g cutoff))))))))";
        let w = work_of(src, "f");
        let dims = |a: &str, d: u32| (a == "out" && d == 0).then_some(10.0);
        let mut k = Known::new(&dims);
        k.set("cutoff", 50.0);
        k.set("n", 10.0);
        let c = w.evaluate(&mut k);
        assert!(!c.guessed);
        // per call: 50 trips of (cond 3 + body 3 + 0) = 300 (z < 4 is 1, k < c 1, and 1),
        // plus the call 1 and `set (index out i j)` 1 op 8 bytes, loop 1: each of the 100
        // inner iterations, plus 1 per outer iteration.
        assert_eq!(c.bytes, 800.0);
        let per_call = 50.0 * (3.0 + 3.0);
        assert_eq!(c.ops, 10.0 * (10.0 * (per_call + 1.0 + 1.0 + 1.0) + 1.0));
    }

    #[test]
    fn windows_around_the_loop_variable_are_counted_at_its_middle() {
        // growcut-like: jj over max(j - r, 0) .. min(j + r + 1, w) - 1, 2r + 1 = 3 trips
        // in the middle of j's range (the engine's count for j: 100 points from 0).
        let w = work_of(
            "(module m :index-base 0 (function f ((x f64[1,row]) (r i64) (w i64)) () (locals (j i64) (jj i64))
               (parfor (j) (range 0 (- w 1))
                 (block (for (jj) (range (max (- j r) 0) (- (min (+ (+ j r) 1) w) 1))
                   (block (set (index x j) (index x jj))))))))",
            "f",
        );
        let dims = |_: &str, _: u32| None;
        let mut k = Known::new(&dims);
        k.set("r", 1.0);
        k.set("w", 100.0);
        k.trips("j", 100.0, 49.0);
        let c = w.evaluate(&mut k);
        assert!(!c.guessed);
        // Per j: 3 x (read 1 + write 1 + loop 1) + 1; 16 bytes per inner iteration.
        assert_eq!((c.ops, c.bytes), (100.0 * (3.0 * 3.0 + 1.0), 100.0 * 3.0 * 16.0));
    }

    #[test]
    fn unknown_bounds_are_guessed_and_said_so() {
        let w = work_of(
            "(module m :index-base 0 (function f ((x f64[1,row]) (n i64)) () (locals (i i64))
               (parfor (i) (range 0 (- n 1)) (block (set (index x i) 1.0)))))",
            "f",
        );
        let dims = |_: &str, _: u32| None;
        let c = w.evaluate(&mut Known::new(&dims));
        assert!(c.guessed);
        assert_eq!(c.ops, GUESSED_TRIPS * 2.0);
        // The engine's own count for the loop variable wins.
        let mut k = Known::new(&dims);
        k.trips("i", 1000.0, 499.0);
        let c = w.evaluate(&mut k);
        assert_eq!((c.ops, c.guessed), (2000.0, false));
    }
}
