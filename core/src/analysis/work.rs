//! The work of one parfor, or of a whole function body, estimated from its VRIR:
//! operations and bytes of array elements touched, evaluated when the task is reached,
//! with the values the CPU has computed by then (the domain the engine was given, the
//! kernel's scalar arguments, the extents of its arrays), or when a function is called,
//! with its arguments (the CPU's tier choice, `cpu::tiers`).
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
//! Whole-array operations (R's vector style: `x - x[k]`, `sum(m * d)`, `a %*% b`) cost
//! their weight once per element: the walk keeps the extents of the array locals it has
//! seen assigned (allocations, fills, slices by ranges, element-wise results of arrays of
//! known extents), so that `dim` of a local and the loops over it are counted too. An
//! array whose extents are not known counts [`GUESSED_TRIPS`] elements, guessed.
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

/// A parfor statement (or a function's body as one block) and what its estimate needs
/// of the module: the functions it calls and the arrays it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Work {
    parfor: Stmt,
    /// The array variables of the parfor's function.
    arrays: Arrays,
    callees: HashMap<String, Callee>,
}

#[derive(Clone, Debug, PartialEq)]
struct Callee {
    params: Vec<String>,
    body: Vec<Stmt>,
    arrays: Arrays,
}

/// An array variable: its element bytes and its number of dimensions.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ArrayVar {
    elem: usize,
    rank: u32,
}

type Arrays = HashMap<String, ArrayVar>;

/// Extents of an array value, each when known.
type Shape = Vec<Option<f64>>;

fn array_vars(f: &Function) -> Arrays {
    let mut out = HashMap::new();
    let vars = f.params.iter().map(|p| (&p.name, &p.ty));
    for (name, ty) in vars.chain(f.locals.iter().map(|l| (&l.name, &l.ty))) {
        if let Type::Array(a) = ty {
            out.insert(name.clone(), ArrayVar { elem: elem_size(a.elem), rank: a.ndims });
        }
    }
    out
}

/// Elements of an array of `shape`, and whether some extent was not known (then
/// [`GUESSED_TRIPS`] stands for it).
fn elements(shape: &Shape) -> (f64, bool) {
    let mut n = 1.0;
    let mut guessed = false;
    for d in shape {
        match d {
            Some(d) => n *= d.max(0.0),
            None => {
                n *= GUESSED_TRIPS;
                guessed = true;
            }
        }
    }
    (n, guessed)
}

/// Values known while walking: scalars by name.
pub struct Known<'a> {
    values: HashMap<String, f64>,
    /// `dim` of an array variable, when the task was given the array.
    dims: &'a dyn Fn(&str, u32) -> Option<f64>,
    /// Trip counts and middle values of loop variables the engine counted itself (the
    /// kernel's domain).
    trips: HashMap<String, (f64, f64)>,
    /// Extents of array locals assigned on the way (and of a callee's array
    /// parameters); `dims` answers for the rest.
    shapes: HashMap<String, Shape>,
    /// Loop variables: their values are the middle of their ranges, good for trip
    /// counts but not for choosing a branch.
    varying: std::collections::HashSet<String>,
}

impl<'a> Known<'a> {
    pub fn new(dims: &'a dyn Fn(&str, u32) -> Option<f64>) -> Known<'a> {
        Known { values: HashMap::new(), dims, trips: HashMap::new(), shapes: HashMap::new(), varying: Default::default() }
    }
    /// A scalar's value when the task is reached.
    pub fn set(&mut self, name: &str, v: f64) {
        self.values.insert(name.to_string(), v);
    }
    /// The engine's count for the loop over `var` (a dimension of the kernel's domain)
    /// and the value in the middle of its range (what the body's own ranges see).
    pub fn trips(&mut self, var: &str, count: f64, middle: f64) {
        self.varying.insert(var.to_string());
        self.trips.insert(var.to_string(), (count, middle));
    }
}

impl Work {
    /// The work of a whole call of `f` (its body as one block), evaluated with its
    /// scalar arguments `set` by parameter name and `dims` answering for its array
    /// parameters.
    pub fn of_function(m: &Module, f: &Function) -> Work {
        let body = Stmt {
            kind: StmtKind::Block(crate::vrir::ast::Block { on_gpu: false, stmts: f.body.clone() }),
            line: None,
        };
        Work::of(m, f, &body)
    }

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
                        arrays: array_vars(g),
                    },
                );
            }
        }
        Work { parfor: s.clone(), arrays: array_vars(f), callees }
    }

    /// The cost of the whole parfor (every iteration) with what `known` holds.
    pub fn evaluate(&self, known: &mut Known) -> Cost {
        // The extents `dims` knows, as shapes, so that `len` of an array is known too.
        for (name, a) in &self.arrays {
            if !known.shapes.contains_key(name) {
                let shape: Shape = (0..a.rank).map(|d| (known.dims)(name, d)).collect();
                if shape.iter().all(Option::is_some) {
                    known.shapes.insert(name.clone(), shape);
                }
            }
        }
        let mut w = Walk { work: self, depth: 0, returned: None };
        w.stmt(&self.parfor, known, &self.arrays)
    }
}

struct Walk<'w> {
    work: &'w Work,
    depth: usize,
    /// The extents of the array the last call walked returned (its first result).
    returned: Option<Shape>,
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
                // R's `a:b` steps by `2 * (a <= b) - 1`.
                BinOp::Lt => (a < b) as i64 as f64,
                BinOp::Le => (a <= b) as i64 as f64,
                BinOp::Gt => (a > b) as i64 as f64,
                BinOp::Ge => (a >= b) as i64 as f64,
                BinOp::Eq => (a == b) as i64 as f64,
                BinOp::Ne => (a != b) as i64 as f64,
                BinOp::And => (a != 0.0 && b != 0.0) as i64 as f64,
                BinOp::Or => (a != 0.0 || b != 0.0) as i64 as f64,
                _ => return None,
            }
        }
        Expr::Lib { func: LibFn::Min, args } => value(&args[0], k)?.min(value(&args[1], k)?),
        Expr::Lib { func: LibFn::Max, args } => value(&args[0], k)?.max(value(&args[1], k)?),
        Expr::Lib { func: LibFn::Sqrt, args } => value(&args[0], k)?.sqrt(),
        Expr::Lib { func: LibFn::Len, args } => match args.first()? {
            Expr::Var { name } => k.shapes.get(name)?.iter().try_fold(1.0, |n, d| Some(n * (*d)?))?,
            _ => return None,
        },
        Expr::Dim { arg, axis } => match &**arg {
            Expr::Var { name } => match k.shapes.get(name) {
                Some(shape) => (*shape.get(*axis as usize)?)?,
                None => (k.dims)(name, *axis)?,
            },
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
                            let empty = Known::new(&|_, _| None);
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

/// The extents of `e` when it is an array (None for a scalar): array variables by what
/// is known of them, allocations by their dims, slices by their ranges, element-wise
/// operations by their array operand.
fn shape(e: &Expr, k: &Known, arrays: &Arrays) -> Option<Shape> {
    match e {
        Expr::Var { name } => {
            let a = arrays.get(name)?;
            Some(match k.shapes.get(name) {
                Some(s) => s.clone(),
                None => (0..a.rank).map(|d| (k.dims)(name, d)).collect(),
            })
        }
        Expr::Alloc { dims, .. } => Some(dims.iter().map(|d| value(d, k)).collect()),
        Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::Scan { arg, .. } => shape(arg, k, arrays),
        Expr::Binary { lhs, rhs, .. } => {
            let (a, b) = (shape(lhs, k, arrays), shape(rhs, k, arrays));
            match (a, b) {
                // Recycling: the longer operand's extents.
                (Some(a), Some(b)) => Some(if elements(&b).0 > elements(&a).0 { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        Expr::Lib { func: LibFn::Matmul, args } if args.len() == 2 => {
            let (a, b) = (shape(&args[0], k, arrays)?, shape(&args[1], k, arrays)?);
            let rows = if a.len() == 2 { a[0] } else { Some(1.0) };
            let cols = if b.len() == 2 { b[1] } else { Some(1.0) };
            Some(vec![rows, cols])
        }
        Expr::Lib { func: LibFn::Transpose, args } => {
            let mut s = shape(args.first()?, k, arrays)?;
            s.reverse();
            Some(s)
        }
        Expr::Lib { func: LibFn::Len | LibFn::Ndims, .. } => None,
        Expr::Lib { args, .. } | Expr::Map { args, .. } => {
            args.iter().filter_map(|a| shape(a, k, arrays)).max_by(|a, b| elements(a).0.total_cmp(&elements(b).0))
        }
        Expr::Reduce { arg, axis: Some(axis), .. } => {
            let mut s = shape(arg, k, arrays)?;
            if (*axis as usize) < s.len() {
                s.remove(*axis as usize);
            }
            Some(s)
        }
        Expr::Index { array, indices, .. } => match &**array {
            Expr::Var { name } => index_shape(name, indices, k, arrays),
            _ => None,
        },
        _ => None,
    }
}

/// The extents of `array[indices]` when some index is a range or an array (a slice or a
/// gather); None when every index is a scalar (an element).
fn index_shape(array: &str, indices: &[Expr], k: &Known, arrays: &Arrays) -> Option<Shape> {
    let mut out = Vec::new();
    let mut sliced = false;
    for (d, i) in indices.iter().enumerate() {
        match i {
            Expr::Range { start, stop, step } => {
                sliced = true;
                let extent = || -> Option<f64> {
                    let whole = value(&Expr::Dim { arg: Box::new(Expr::var(array)), axis: d as u32 }, k);
                    let step = step.as_deref().map_or(Some(1.0), |e| value(e, k))?;
                    match (start, stop) {
                        (Some(a), Some(b)) if step != 0.0 => {
                            Some((((value(b, k)? - value(a, k)?) / step).floor() + 1.0).max(0.0))
                        }
                        // An open end (or both): at most the whole extent.
                        _ => whole,
                    }
                };
                out.push(extent());
            }
            // A gather by an array; a scalar index drops the dimension.
            other => {
                if let Some(s) = shape(other, k, arrays) {
                    sliced = true;
                    let (n, guessed) = elements(&s);
                    out.push((!guessed).then_some(n));
                }
            }
        }
    }
    sliced.then_some(out)
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
    fn block(&mut self, stmts: &[Stmt], k: &mut Known, arrays: &Arrays) -> Cost {
        let mut c = Cost::default();
        for s in stmts {
            c.add(self.stmt(s, k, arrays));
        }
        c
    }

    fn element(&mut self, array: &str, indices: &[Expr], k: &mut Known, arrays: &Arrays) -> Cost {
        let mut c = Cost::ops(1.0);
        c.bytes += arrays.get(array).map_or(8, |a| a.elem) as f64;
        // A slice or a gather touches an element per index combination.
        if let Some(shape) = index_shape(array, indices, k, arrays) {
            let (n, guessed) = elements(&shape);
            c = c.times(n);
            c.guessed |= guessed;
        }
        for i in indices {
            c.add(self.expr(i, k, arrays));
        }
        c
    }

    fn stmt(&mut self, s: &Stmt, k: &mut Known, arrays: &Arrays) -> Cost {
        match &s.kind {
            StmtKind::Block(b) => self.block(&b.stmts, k, arrays),
            StmtKind::Assign { targets, value: e } => {
                let mut c = self.expr(e, k, arrays);
                for t in targets {
                    match t {
                        LValue::Index { array, indices, .. } => {
                            c.add(self.element(array, indices, k, arrays))
                        }
                        LValue::Var { name } => {
                            // A value computed from a loop variable varies with it.
                            let mut from_varying = false;
                            crate::analysis::walk_expr(e, &mut |x| {
                                if let Expr::Var { name } = x {
                                    from_varying |= k.varying.contains(name);
                                }
                            });
                            if from_varying {
                                k.varying.insert(name.clone());
                            }
                            match (targets.len(), value(e, k)) {
                                (1, Some(v)) => k.set(name, v),
                                _ => {
                                    k.values.remove(name);
                                }
                            }
                            let called = match e {
                                Expr::Call { .. } => self.returned.take(),
                                _ => None,
                            };
                            match (targets.len(), shape(e, k, arrays).or(called)) {
                                (1, Some(s)) if arrays.contains_key(name) => {
                                    k.shapes.insert(name.clone(), s);
                                }
                                _ => {
                                    k.shapes.remove(name);
                                }
                            }
                        }
                    }
                }
                c
            }
            StmtKind::If { cond, then, els } => {
                let mut c = self.expr(cond, k, arrays);
                // A condition known now (a recycling test, a version test on extents)
                // takes one branch: only its statements run. One on a loop variable
                // varies: the dearer branch counts.
                let mut names = Vec::new();
                crate::analysis::walk_expr(cond, &mut |x| {
                    if let Expr::Var { name } = x {
                        names.push(name.clone());
                    }
                });
                let varies = names.iter().any(|n| k.varying.contains(n));
                if let Some(taken) = value(cond, k).filter(|_| !varies) {
                    let b = if taken != 0.0 { Some(then) } else { els.as_ref() };
                    if let Some(b) = b {
                        c.add(self.block(&b.stmts, k, arrays));
                    }
                    return c;
                }
                let t = self.block(&then.stmts, k, arrays);
                let e = els.as_ref().map(|b| self.block(&b.stmts, k, arrays)).unwrap_or_default();
                c.add(t.max(e));
                c
            }
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                let (n, mids, guessed) = trips(domain, vars, k);
                k.varying.extend(vars.iter().cloned());
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
                self.returned = values.first().and_then(|v| shape(v, k, arrays));
                c
            }
            StmtKind::Expr { expr } => self.expr(expr, k, arrays),
            StmtKind::Alloc { var, dims } => {
                let shape = dims.iter().map(|d| value(d, k)).collect();
                k.shapes.insert(var.clone(), shape);
                Cost::ops(1.0)
            }
            _ => Cost::ops(1.0),
        }
    }

    fn expr(&mut self, e: &Expr, k: &mut Known, arrays: &Arrays) -> Cost {
        if let Some(c) = self.whole_array(e, k, arrays) {
            return c;
        }
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

    /// An operation on whole arrays: its weight per element of its result (per element
    /// of its argument for a reduction; `2 m k n` for `matmul`), and the bytes of its
    /// array operands and result; None for a scalar operation.
    fn whole_array(&mut self, e: &Expr, k: &mut Known, arrays: &Arrays) -> Option<Cost> {
        // A guess inside the operation (a mapped function's loop over an element's value).
        let mut guessed_inside = false;
        let (weight, over) = match e {
            Expr::Unary { .. } | Expr::Cast { .. } | Expr::Scan { .. } => (1.0, shape(e, k, arrays)?),
            Expr::Binary { op, .. } => {
                let w = if matches!(op, BinOp::Div | BinOp::IDiv | BinOp::Mod) { 4.0 } else { 1.0 };
                (w, shape(e, k, arrays)?)
            }
            Expr::Lib { func: LibFn::Matmul, args } if args.len() == 2 => {
                let (a, b) = (shape(&args[0], k, arrays)?, shape(&args[1], k, arrays)?);
                let inner = a.last().copied().flatten();
                let (an, ag) = elements(&a);
                let (bn, bg) = elements(&b);
                // m k n = (m k) (k n) / k.
                let mkn = inner.filter(|k| *k > 0.0).map_or(an * bn / GUESSED_TRIPS, |k| an * bn / k);
                let mut c = Cost { ops: 2.0 * mkn, bytes: 8.0 * (an + bn), guessed: ag || bg || inner.is_none() };
                for a in args {
                    c.add(self.expr(a, k, arrays));
                }
                return Some(c);
            }
            Expr::Lib { func, .. } => (lib_weight(*func), shape(e, k, arrays)?),
            Expr::Map { func, args } => {
                let over = shape(e, k, arrays)?;
                // The scalar function once per element, its array arguments' elements
                // as scalars not known here (what depends on them is guessed).
                let scalars: Vec<Expr> = args
                    .iter()
                    .map(|a| if shape(a, k, arrays).is_some() { Expr::var("") } else { a.clone() })
                    .collect();
                let per = self.call(func, &scalars, k, arrays);
                guessed_inside = per.guessed;
                (per.ops, over)
            }
            Expr::Reduce { arg, .. } => (1.0, shape(arg, k, arrays)?),
            // Filled allocations write every element; `empty` ones cost one operation.
            Expr::Alloc { init, .. } if !matches!(init, crate::vrir::ast::AllocInit::Empty) => {
                (1.0, shape(e, k, arrays)?)
            }
            _ => return None,
        };
        let (n, guessed) = elements(&over);
        let mut c = Cost { ops: weight * n, bytes: 8.0 * n, guessed: guessed || guessed_inside };
        // Each array operand is read once per element; scalar ones and array
        // expressions below count themselves.
        let mut children = Vec::new();
        for_each_child(e, &mut |x| children.push(x.clone()));
        for x in &children {
            match x {
                Expr::Var { name } if arrays.contains_key(name) => {
                    c.bytes += n * arrays[name].elem as f64;
                }
                _ => c.add(self.expr(x, k, arrays)),
            }
        }
        Some(c)
    }

    fn call(&mut self, func: &str, args: &[Expr], k: &mut Known, arrays: &Arrays) -> Cost {
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
        let mut inner = Known::new(&|_, _| None);
        for (p, a) in g.params.iter().zip(args) {
            if let Some(v) = value(a, k) {
                inner.set(p, v);
            }
            if let Some(s) = shape(a, k, arrays) {
                inner.shapes.insert(p.clone(), s);
            }
        }
        self.depth += 1;
        self.returned = None;
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

    fn function_work(src: &str, func: &str, dims: &dyn Fn(&str, u32) -> Option<f64>, scalars: &[(&str, f64)]) -> Cost {
        let m = parse_module(src).unwrap();
        let w = Work::of_function(&m, m.function(func).unwrap());
        let mut k = Known::new(dims);
        for (name, v) in scalars {
            k.set(name, *v);
        }
        w.evaluate(&mut k)
    }

    #[test]
    fn whole_array_operations_cost_per_element() {
        // Issue 18's vector style: per iteration k, d <- x - x[k]; r2 <- d * d + 0.01;
        // out[k] <- sum(w * d / (r2 * sqrt(r2))), with x of 200 elements.
        let src = "(module m :index-base 1
          (function f ((x f64[1,col]) (w f64[1,col]) (out f64[1,col])) ()
            (locals (k i64) (n i64) (d f64[1,col]) (r2 f64[1,col]))
            (set n (dim x 0))
            (for (k) (range 1 n)
              (block
                (set d (- x (index x k)))
                (set r2 (+ (* d d) 0.01))
                (set (index out k) (sum (/ (* w d) (* r2 (sqrt r2)))))))))";
        let dims = |_: &str, d: u32| (d == 0).then_some(200.0);
        let c = function_work(src, "f", &dims, &[]);
        assert!(!c.guessed);
        // By hand, per iteration (N = 200; an element-wise operation costs its weight and
        // writes 8 bytes per element, each array operand reads 8 per element):
        //   d:   the subtraction 200 ops, 1600 + 1600 (x) bytes; x[k] 1 op, 8 bytes;
        //   r2:  two operations 400 ops; 1600 + 1600 (the product) + 3200 (d twice);
        //   sum: 200 + the division 800 + w * d 200 + r2 * sqrt 200 + sqrt 800 ops;
        //        bytes 1600 (sum) + 1600 (/) + 4800 (w * d) + 3200 (r2 * sqrt) + 3200
        //        (sqrt); out[k] 1 op, 8 bytes; the loop 1 op.
        let per_ops = 201.0 + 400.0 + (200.0 + 800.0 + 200.0 + 200.0 + 800.0 + 1.0) + 1.0;
        let per_bytes = 3208.0 + 6400.0 + (1600.0 + 1600.0 + 4800.0 + 3200.0 + 3200.0 + 8.0);
        assert_eq!((c.ops, c.bytes), (200.0 * per_ops, 200.0 * per_bytes));
    }

    #[test]
    fn matmul_locals_known_branches_and_callees() {
        // matmul: 2 m k n operations. The local `t` of 2n elements (n = 50) is what the
        // loop over (dim t 0) runs over; the `if` on its length takes the cheap branch
        // only; the callee's result has the extents of its argument.
        let src = "(module m :index-base 1
          (function twice ((v f64[1,col])) (f64[1,col]) (return (* 2.0 v)))
          (function f ((a f64[2,col]) (b f64[2,col]) (n i64)) ()
            (locals (c f64[2,col]) (t f64[1,col]) (u f64[1,col]) (i i64) (s f64))
            (set c (matmul a b))
            (set t (zeros f64[1,col] (* 2 n)))
            (if (== (len t) 100)
              (block (set s 1.0))
              (block (for (i) (range 1 1000000) (block (set s (+ s 1.0))))))
            (set u (call twice t))
            (for (i) (range 1 (dim u 0)) (block (set (index u i) 0.0)))))";
        let dims = |name: &str, d: u32| match (name, d) {
            ("a", 0) => Some(30.0),
            ("a", 1) | ("b", 0) => Some(40.0),
            ("b", 1) => Some(50.0),
            _ => None,
        };
        let c = function_work(src, "f", &dims, &[("n", 50.0)]);
        assert!(!c.guessed);
        // matmul 120000 ops, 8 (1200 + 2000) bytes; zeros 100 ops and 800 bytes (its
        // elements) + 1 (the multiply in its dims); the if: its condition 2 (==, len) and
        // the cheap branch 0; the call 1 + the product 100 ops, 800 + 800 bytes; the loop
        // over u: 100 x (write 1 + loop 1), 800 bytes.
        let ops = 120000.0 + 101.0 + 2.0 + (1.0 + 100.0) + 200.0;
        let bytes = 25600.0 + 800.0 + 1600.0 + 800.0;
        assert_eq!((c.ops, c.bytes), (ops, bytes));
    }

    #[test]
    fn a_mapped_function_costs_per_element_and_keeps_its_guesses() {
        // `map` of g over 50 elements: g's body once per element; a loop bounded by the
        // element's value cannot be counted, so the estimate says it guessed.
        let src = |body: &str| {
            format!(
                "(module m :index-base 1
                  (function g ((v f64)) (f64) (locals (i i64) (s f64)) {body})
                  (function f ((x f64[1,col])) (f64[1,col]) (return (map g x))))"
            )
        };
        let dims = |_: &str, d: u32| (d == 0).then_some(50.0);
        let plain = function_work(&src("(return (* v 2.0))"), "f", &dims, &[]);
        // Per element: the call 1 + the product 1; 8 bytes written, 8 read.
        assert_eq!((plain.ops, plain.bytes, plain.guessed), (100.0, 800.0, false));
        let looped = function_work(
            &src("(set s 0.0) (for (i) (range 1 (cast i64 v)) (block (set s (+ s 1.0)))) (return s)"),
            "f",
            &dims,
            &[],
        );
        assert!(looped.guessed);
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
