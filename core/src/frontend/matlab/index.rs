//! MATLAB indexing, read and write, on arrays compiled with rank 2 or more.
//!
//! - Every index keeps its dimension (`A(i, :)` is 1 x n); trailing scalar indices past
//!   the second drop theirs, as MATLAB drops trailing singleton dimensions.
//! - One index is linear indexing, column-major (VRIR `:flat`); its result takes the
//!   shape of the index, except that indexing a vector with a vector keeps the
//!   vector's orientation (Octave's `Array<T>::index`); `A(:)` is a column.
//! - A double index must be a whole number (Octave's error otherwise); logical indices
//!   are masks of the full extent.
//! - An assignment past the end grows the array, as MATLAB does (zeros fill the gap;
//!   a vector grows along its length, `[]` and a row into a row); inside a `parfor`
//!   growth is left to Octave.

use super::ops::{self, dim, first, numel};
use super::rules::{bin, i64c, lib, COMPLEX, DOUBLE, INT32, INT64, LOGICAL};
use crate::frontend::hir::{Arg, Expr, ExprKind, Line};
use crate::frontend::lower::{LErr, LResult, Lowered, Lowerer};
use crate::frontend::types::Ty;
use crate::vrir::{self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, Literal, ReduceOp, ScalarType, Stmt, StmtKind};

/// A double index that is not a whole number, or is NaN (Octave's error).
pub const INDEX_NOT_INTEGER: &str = "index_not_integer";
/// An index other than 1 into a single value (Octave: out of bound 1).
pub const SCALAR_INDEX: &str = "scalar_index";
/// A logical mask of another length than what it indexes (Octave selects or errors
/// depending on the values; the call runs in Octave).
pub const MASK_LENGTH: &str = "mask_length";
/// A linear assignment past the end of a matrix (Octave's error: ambiguous resize).
pub const INVALID_RESIZE: &str = "invalid_resize";
/// Growth compiled code leaves to Octave (in a parfor, of a 3-d array, through `:`).
pub const GROWTH: &str = "growth_unsupported";
/// A value with several elements stored at one position (Octave's error).
pub const ASSIGN_NONCONFORMANT: &str = "assign_nonconformant";
/// A range used as a loop or an index whose start or step is not a whole number (a
/// loop: the call runs in Octave; an index: Octave's error).
pub const RANGE_NOT_INTEGER: &str = "range_not_integer";
/// A range with NaN or too many elements.
pub const RANGE_INVALID: &str = "range_invalid";

/// One index after conversion.
enum Ix {
    /// One position (i64).
    Scalar(vrir::Expr),
    /// `:`.
    All,
    /// `start:step:stop`, `count` elements (all i64, hoisted).
    Range { start: vrir::Expr, stop: vrir::Expr, step: vrir::Expr, count: vrir::Expr },
    /// Positions (a rank-1 i64 array) and the index value as written (for its shape).
    Gather { positions: vrir::Expr, written: Lowered },
    /// A rank-1 logical mask and whether the written mask is a row.
    Mask { mask: vrir::Expr, row: vrir::Expr },
}

impl Ix {
    fn vrir(&self) -> vrir::Expr {
        match self {
            Ix::Scalar(i) => i.clone(),
            Ix::All => vrir::Expr::Range { start: None, stop: None, step: None },
            Ix::Range { start, stop, step, .. } => vrir::Expr::Range { start: Some(Box::new(start.clone())), stop: Some(Box::new(stop.clone())), step: Some(Box::new(step.clone())) },
            Ix::Gather { positions, .. } => positions.clone(),
            Ix::Mask { mask, .. } => mask.clone(),
        }
    }
    fn is_scalar(&self) -> bool {
        matches!(self, Ix::Scalar(_))
    }
}

/// The parts of a range `a:b` or `a:s:b` whose start and step are whole numbers (checked
/// at run time: `reason` otherwise): start, step and the element count (Octave's, with
/// its tolerance at the limit), as hoisted i64 values.
pub struct RangeParts {
    pub start: vrir::Expr,
    pub step: vrir::Expr,
    pub count: vrir::Expr,
    /// A bound that is integer code by construction (`1:n` with `n` from `size`), used
    /// as the range's stop as it is: the optimizer hoists and reads such bounds.
    pub bound: Option<vrir::Expr>,
}

impl RangeParts {
    /// The stop of the range: the bound, or the last element (start + (count - 1) * step).
    pub fn stop(&self) -> vrir::Expr {
        if let Some(b) = &self.bound {
            return b.clone();
        }
        bin(vrir::BinOp::Add, self.start.clone(), bin(vrir::BinOp::Mul, bin(vrir::BinOp::Sub, self.count.clone(), i64c(1)), self.step.clone()))
    }
}

/// `e` as i64 code when it is a whole number by construction: whole literals, integer
/// loop counters (`__vr_loopvar` of an int32 variable), element counts and extents
/// (`numel`, `size(X, k)`, `length`, `rows`, `columns`) and `+ - *` of these. None for
/// anything else.
pub fn int_expr(lw: &mut Lowerer, e: &Expr) -> LResult<Option<vrir::Expr>> {
    use crate::frontend::hir::{BinOp, UnOp};
    Ok(match &e.kind {
        ExprKind::Double(v) if v.fract() == 0.0 && v.abs() < 2.0e9 => Some(i64c(*v as i64)),
        ExprKind::Unary(UnOp::Neg, x) => int_expr(lw, x)?.map(|x| vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(x) }),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::MatMul), a, b) => {
            let (Some(x), Some(y)) = (int_expr(lw, a)?, int_expr(lw, b)?) else { return Ok(None) };
            let vop = match op {
                BinOp::Add => vrir::BinOp::Add,
                BinOp::Sub => vrir::BinOp::Sub,
                _ => vrir::BinOp::Mul,
            };
            Some(bin(vop, x, y))
        }
        ExprKind::Call { func, args } if !lw.is_user_function(func) => match (func.as_str(), args.as_slice()) {
            ("__vr_integral", [x]) => int_expr(lw, &x.value)?,
            ("__vr_loopvar", [x]) => {
                let v = lw.expr(&x.value)?;
                (matches!(v.ty.elem, INT32 | ScalarType::I64) && v.ty.rank == 0).then(|| lw.cast(v, ScalarType::I64).expr)
            }
            ("__vr_end", [a, k, n]) => {
                let (ExprKind::Double(k), ExprKind::Double(n)) = (&k.value.kind, &n.value.kind) else { return Ok(None) };
                let (k, n) = (*k as usize - 1, *n as usize);
                let t = lw.expr(&a.value)?;
                Some(if t.ty.rank == 0 || k as u32 >= t.ty.rank { i64c(1) } else { extent_of(&t, k, n) })
            }
            ("numel" | "length" | "rows" | "columns", [x]) => {
                let t = lw.expr(&x.value)?;
                if t.ty.rank == 0 {
                    return Ok(Some(i64c(1)));
                }
                let t = lw.hoist(t);
                Some(match func.as_str() {
                    "numel" => numel(&t.expr),
                    "rows" => dim(&t.expr, 0),
                    "columns" => dim(&t.expr, 1),
                    _ => {
                        let mut m = dim(&t.expr, 0);
                        for k in 1..t.ty.rank {
                            m = lib(LibFn::Max, vec![m, dim(&t.expr, k)]);
                        }
                        bin(vrir::BinOp::Mul, m, vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(bin(vrir::BinOp::Gt, numel(&t.expr), i64c(0))) })
                    }
                })
            }
            ("size", [x, k]) => match k.value.kind {
                ExprKind::Double(k) if k >= 1.0 && k.fract() == 0.0 => {
                    let t = lw.expr(&x.value)?;
                    let k = k as u32 - 1;
                    Some(if k < t.ty.rank { dim(&t.expr, k) } else { i64c(1) })
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })
}

/// The range arguments `[a, b]` or `[a, s, b]` of `colon`.
pub fn range_parts(lw: &mut Lowerer, args: &[Arg], reason: &str, line: Line) -> LResult<RangeParts> {
    let (a, s, b) = match args {
        [a, b] => (&a.value, None, &b.value),
        [a, s, b] => (&a.value, Some(&s.value), &b.value),
        _ => return Err(lw.unsupported("`colon`", line, "it takes two or three arguments")),
    };
    let lit = |e: &Expr| match e.kind {
        ExprKind::Double(v) => Some(v),
        ExprKind::Unary(crate::frontend::hir::UnOp::Neg, ref x) => match x.kind {
            ExprKind::Double(v) => Some(-v),
            _ => None,
        },
        _ => None,
    };
    let whole_lit = |v: Option<f64>| v.filter(|v| v.fract() == 0.0 && v.abs() < 9.0e15);
    let (la, ls, lb) = (whole_lit(lit(a)), s.map_or(Some(1.0), |s| whole_lit(lit(s))), whole_lit(lit(b)));
    if let (Some(x), Some(st), Some(y)) = (la, ls, lb) {
        // Whole-number literals: Octave's count is floor((b - a) / s) + 1.
        let n = if st == 0.0 { 0.0 } else { ((y - x) / st).floor() + 1.0 }.max(0.0);
        return Ok(RangeParts { start: i64c(x as i64), step: i64c(st as i64), count: i64c(n as i64), bound: None });
    }
    if let Some(st) = ls.filter(|st| *st != 0.0) {
        // A start that is a whole literal or integer code (`n - 1:-1:1`).
        let start = match la {
            Some(x) => Some(i64c(x as i64)),
            None => int_expr(lw, a)?,
        };
        if let Some(start) = start {
            if let Some(stop) = int_expr(lw, b)? {
                // A whole-number bound by construction: Octave's count is exact. Not
                // hoisted: the bound stays an expression of invariants, which the
                // optimizer reads in place wherever the loop is.
                let step = i64c(st as i64);
                let span = bin(vrir::BinOp::IDiv, bin(vrir::BinOp::Sub, stop.clone(), start.clone()), step.clone());
                let count = lib(LibFn::Max, vec![bin(vrir::BinOp::Add, span, i64c(1)), i64c(0)]);
                return Ok(RangeParts { start, step, count, bound: Some(stop) });
            }
        }
    }
    let scalar = |lw: &mut Lowerer, e: &Expr| -> LResult<Lowered> {
        let v = lw.expr(e)?;
        if v.ty.rank != 0 {
            return Err(lw.unsupported("a range `a:b`", line, "an endpoint or step that is an array (MATLAB takes its first element)"));
        }
        if !matches!(v.ty.elem, DOUBLE | LOGICAL) {
            return Err(lw.unsupported("a range `a:b`", line, &format!("{} endpoints (only double ranges compile)", ops::class_name(v.ty.elem))));
        }
        let v = lw.cast(v, DOUBLE);
        Ok(lw.hoist(v))
    };
    let va = scalar(lw, a)?;
    let vs = match s {
        Some(s) => scalar(lw, s)?,
        None => Lowered::new(vrir::Expr::f64(1.0), Ty::scalar(DOUBLE)),
    };
    let vb = scalar(lw, b)?;
    for (v, known) in [(&va, la.is_some()), (&vs, ls.is_some())] {
        if !known {
            let whole = bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, lib(LibFn::Floor, vec![v.expr.clone()]), v.expr.clone()), bin(vrir::BinOp::Lt, lib(LibFn::Abs, vec![v.expr.clone()]), vrir::Expr::f64(9.0e15)));
            lw.raise_if(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(whole) }, reason);
        }
    }
    let n = super::helpers::apply(lw, super::helpers::RANGE_NUMEL, vec![va.expr.clone(), vs.expr.clone(), vb.expr.clone()], false);
    let n = lw.hoist(Lowered::new(n, Ty::scalar(ScalarType::I64)));
    lw.raise_if(bin(vrir::BinOp::Lt, n.expr.clone(), i64c(0)), RANGE_INVALID);
    let start = lw.hoist(lw.cast(va, ScalarType::I64));
    let step = lw.hoist(lw.cast(vs, ScalarType::I64));
    Ok(RangeParts { start: start.expr, step: step.expr, count: n.expr, bound: None })
}

/// Is `e` a call of the builtin `name` (not shadowed by a function of the file)?
pub fn builtin_call<'e>(lw: &Lowerer, e: &'e Expr, name: &str) -> Option<&'e [Arg]> {
    match &e.kind {
        ExprKind::Call { func, args } if func == name && !lw.is_user_function(func) => Some(args),
        _ => None,
    }
}

/// A scalar index value as an i64 position: a double must be a whole number.
fn scalar_position(lw: &mut Lowerer, v: Lowered, checked: bool, line: Line) -> LResult<vrir::Expr> {
    match v.ty.elem {
        DOUBLE => {
            if let vrir::Expr::Const { value: Literal::F64(x) } = v.expr {
                if x.fract() == 0.0 && x.abs() < 9.0e15 {
                    return Ok(i64c(x as i64));
                }
            }
            if !checked {
                return Ok(lw.cast(v, ScalarType::I64).expr);
            }
            let v = lw.hoist(v);
            {
                let whole = bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, lib(LibFn::Floor, vec![v.expr.clone()]), v.expr.clone()), bin(vrir::BinOp::Lt, lib(LibFn::Abs, vec![v.expr.clone()]), vrir::Expr::f64(9.0e15)));
                lw.raise_if(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(whole) }, INDEX_NOT_INTEGER);
            }
            Ok(lw.cast(v, ScalarType::I64).expr)
        }
        INT32 | ScalarType::I64 => Ok(lw.cast(v, ScalarType::I64).expr),
        LOGICAL => Err(lw.unsupported("a logical scalar as an index", line, "index with a logical array of the full extent, or with a number")),
        other => Err(lw.unsupported("an index", line, &format!("a {} index (indices are whole numbers or logical masks)", ops::class_name(other)))),
    }
}

/// A rank-2 (or more) array flattened to rank 1, column-major.
fn flat(v: &Lowered) -> vrir::Expr {
    if v.ty.rank == 1 {
        return v.expr.clone();
    }
    vrir::Expr::Index { array: Box::new(v.expr.clone()), indices: vec![vrir::Expr::Range { start: None, stop: None, step: None }], flags: IndexFlags { flatten: true, ..IndexFlags::default() } }
}

/// Convert one index expression of `target` (position `k` of `n`, extent `extent`).
fn convert(lw: &mut Lowerer, e: &Expr, extent: &vrir::Expr, line: Line) -> LResult<Ix> {
    if let Some([x]) = builtin_call(lw, e, "__vr_integral") {
        // Integer code by construction (loop counters, counts, `end`): the subscript is
        // i64 arithmetic the bounds-check passes read.
        if let Some(i) = int_expr(lw, &x.value)? {
            return Ok(Ix::Scalar(i));
        }
        let v = lw.expr(&x.value)?;
        if v.ty.rank == 0 {
            return Ok(Ix::Scalar(scalar_position(lw, v, false, line)?));
        }
        return array_index(lw, v, extent, line);
    }
    if let Some(args) = builtin_call(lw, e, "colon") {
        let p = range_parts(lw, args, INDEX_NOT_INTEGER, line)?;
        let stop = p.stop();
        return Ok(Ix::Range { start: p.start, stop, step: p.step, count: p.count });
    }
    let v = lw.expr(e)?;
    if v.ty.rank == 0 {
        return Ok(Ix::Scalar(scalar_position(lw, v, true, line)?));
    }
    array_index(lw, v, extent, line)
}

fn array_index(lw: &mut Lowerer, v: Lowered, extent: &vrir::Expr, line: Line) -> LResult<Ix> {
    let v = lw.hoist(v);
    match v.ty.elem {
        LOGICAL => {
            let m = lw.hoist(Lowered::new(flat(&v), Ty::array(LOGICAL, 1)));
            lw.raise_if(bin(vrir::BinOp::Ne, numel(&m.expr), extent.clone()), MASK_LENGTH);
            let row = if v.ty.rank == 2 { bin(vrir::BinOp::Eq, dim(&v.expr, 0), i64c(1)) } else { vrir::Expr::lit(Literal::Bool(false)) };
            Ok(Ix::Mask { mask: m.expr, row })
        }
        DOUBLE => {
            let f = lw.hoist(Lowered::new(flat(&v), Ty::array(DOUBLE, 1)));
            let frac = Lowered::new(bin(vrir::BinOp::Ne, lib(LibFn::Floor, vec![f.expr.clone()]), f.expr.clone()), Ty::array(LOGICAL, 1));
            let c = ops::any_true(lw, frac);
            lw.raise_if(c, INDEX_NOT_INTEGER);
            let p = lw.hoist(lw.cast(f, ScalarType::I64));
            Ok(Ix::Gather { positions: p.expr, written: v })
        }
        INT32 | INT64 => {
            let f = Lowered::new(flat(&v), Ty::array(v.ty.elem, 1));
            let p = lw.hoist(lw.cast(f, ScalarType::I64));
            Ok(Ix::Gather { positions: p.expr, written: v })
        }
        other => Err(lw.unsupported("an index", line, &format!("a {} index array", ops::class_name(other)))),
    }
}

/// A rank-1 value reshaped to `rows x cols` (a fresh array).
pub fn reshape2(lw: &mut Lowerer, v: vrir::Expr, elem: ScalarType, rows: vrir::Expr, cols: vrir::Expr) -> Lowered {
    let ty = Ty::array(elem, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(StmtKind::Alloc { var: out.clone(), dims: vec![rows, cols] });
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Index { array: out.clone(), indices: vec![vrir::Expr::Range { start: None, stop: None, step: None }], flags: IndexFlags { flatten: true, ..IndexFlags::default() } }],
        value: v,
    });
    Lowered::new(vrir::Expr::var(out), ty)
}

/// 1 or `n`: `cond ? n : 1` in i64 arithmetic.
fn pick(cond: vrir::Expr, n: &vrir::Expr) -> vrir::Expr {
    let c = vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(cond) };
    bin(vrir::BinOp::Add, i64c(1), bin(vrir::BinOp::Mul, c, bin(vrir::BinOp::Sub, n.clone(), i64c(1))))
}

fn not(e: vrir::Expr) -> vrir::Expr {
    vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(e) }
}

/// `target(indices)`.
pub fn read(lw: &mut Lowerer, target: &Expr, indices: &[Option<Expr>], line: Line) -> LResult<Lowered> {
    let mut r = read_unclassed(lw, target, indices, line)?;
    // The elements of an int8 array are int8 (the reads below type them by element type).
    if let Ok(t) = lw.probe_type(target) {
        if t.class.is_some() && r.ty.elem == t.elem {
            r.ty.class = t.class;
        }
    }
    Ok(r)
}

fn read_unclassed(lw: &mut Lowerer, target: &Expr, indices: &[Option<Expr>], line: Line) -> LResult<Lowered> {
    let ExprKind::Var(name) = &target.kind else {
        return Err(lw.unsupported("indexing the value of an expression", line, "index a variable"));
    };
    let t = lw.expr(target)?;
    if t.ty.rank == 0 {
        return read_scalar(lw, t, name, indices, line);
    }
    if indices.is_empty() {
        return Ok(t);
    }
    if indices.len() == 1 {
        return read_linear(lw, t, indices[0].as_ref(), line);
    }
    // Indices past the array's rank must be 1.
    let mut indices = indices;
    while indices.len() as u32 > t.ty.rank {
        match indices.last() {
            Some(Some(Expr { kind: ExprKind::Double(v), .. })) if *v == 1.0 => indices = &indices[..indices.len() - 1],
            Some(Some(Expr { kind: ExprKind::Call { func, args }, .. })) if func == "__vr_integral" && matches!(args.as_slice(), [Arg { value: Expr { kind: ExprKind::Double(v), .. }, .. }] if *v == 1.0) => {
                indices = &indices[..indices.len() - 1]
            }
            _ => return Err(lw.unsupported("indexing", line, &format!("{} indices into a {}-dimensional array (only trailing indices of 1 are allowed past its dimensions)", indices.len(), t.ty.rank))),
        }
    }
    if indices.len() == 1 {
        return read_linear(lw, t, indices[0].as_ref(), line);
    }
    let flatten = (indices.len() as u32) < t.ty.rank;
    let mut ixs = Vec::new();
    for (k, ix) in indices.iter().enumerate() {
        let extent = extent_of(&t, k, indices.len());
        ixs.push(match ix {
            None => Ix::All,
            Some(e) => convert(lw, e, &extent, line)?,
        });
    }
    if ixs.iter().all(Ix::is_scalar) {
        let idx = ixs.iter().map(Ix::vrir).collect();
        return Ok(Lowered::new(vrir::Expr::Index { array: Box::new(t.expr), indices: idx, flags: IndexFlags { flatten, ..IndexFlags::default() } }, Ty::scalar(t.ty.elem)));
    }
    // Every index up to the last non-scalar one keeps its dimension (at least two).
    let last = ixs.iter().rposition(|x| !x.is_scalar()).expect("one is not a scalar");
    let keep = (last + 1).max(2);
    let idx: Vec<vrir::Expr> = ixs
        .iter()
        .enumerate()
        .map(|(k, x)| match x {
            Ix::Scalar(i) if k < keep => vrir::Expr::Range { start: Some(Box::new(i.clone())), stop: Some(Box::new(i.clone())), step: None },
            other => other.vrir(),
        })
        .collect();
    Ok(Lowered::new(vrir::Expr::Index { array: Box::new(t.expr), indices: idx, flags: IndexFlags { flatten, ..IndexFlags::default() } }, Ty::array(t.ty.elem, keep as u32)))
}

/// The extent index `k` of `n` addresses in `t` (the trailing dimensions together for
/// the last of fewer indices than dimensions).
fn extent_of(t: &Lowered, k: usize, n: usize) -> vrir::Expr {
    if n == 1 {
        return numel(&t.expr);
    }
    if k + 1 == n && (n as u32) < t.ty.rank {
        let mut e = dim(&t.expr, k as u32);
        for j in (k as u32 + 1)..t.ty.rank {
            e = bin(vrir::BinOp::Mul, e, dim(&t.expr, j));
        }
        return e;
    }
    dim(&t.expr, k as u32)
}

/// `t(i)` with one index, `t` an array (a variable).
fn read_linear(lw: &mut Lowerer, t: Lowered, ix: Option<&Expr>, line: Line) -> LResult<Lowered> {
    let elem = t.ty.elem;
    let flags = IndexFlags { flatten: t.ty.rank > 1, ..IndexFlags::default() };
    let n_t = numel(&t.expr);
    let ix = match ix {
        None => {
            // `A(:)`: a column.
            let v = vrir::Expr::Index { array: Box::new(t.expr.clone()), indices: vec![Ix::All.vrir()], flags };
            return Ok(reshape2(lw, v, elem, n_t, i64c(1)));
        }
        Some(e) => convert(lw, e, &n_t, line)?,
    };
    if let Ix::Scalar(i) = &ix {
        return Ok(Lowered::new(vrir::Expr::Index { array: Box::new(t.expr), indices: vec![i.clone()], flags }, Ty::scalar(elem)));
    }
    if t.ty.rank > 2 {
        // A 1x1xP array indexed by a vector keeps its orientation in Octave (1x1xK).
        let along3 = bin(vrir::BinOp::And, bin(vrir::BinOp::Eq, dim(&t.expr, 0), i64c(1)), bin(vrir::BinOp::Eq, dim(&t.expr, 1), i64c(1)));
        lw.raise_if(bin(vrir::BinOp::And, along3, bin(vrir::BinOp::Ne, n_t.clone(), i64c(1))), GROWTH);
    }
    let v = lw.hoist(Lowered::new(vrir::Expr::Index { array: Box::new(t.expr.clone()), indices: vec![ix.vrir()], flags }, Ty::array(elem, 1)));
    let k = numel(&v.expr);
    // Octave: a vector indexed by a vector keeps the vector's orientation; otherwise the
    // result has the index's shape.
    let (t_rows, t_cols) = if t.ty.rank == 2 { (dim(&t.expr, 0), dim(&t.expr, 1)) } else { (i64c(0), i64c(0)) };
    let t_is_vector = if t.ty.rank == 2 {
        bin(
            vrir::BinOp::And,
            bin(vrir::BinOp::Ne, bin(vrir::BinOp::Eq, t_rows.clone(), i64c(1)), bin(vrir::BinOp::Eq, t_cols.clone(), i64c(1))),
            bin(vrir::BinOp::Ne, n_t, i64c(1)),
        )
    } else {
        vrir::Expr::lit(Literal::Bool(false))
    };
    let t_is_column = bin(vrir::BinOp::And, t_is_vector.clone(), bin(vrir::BinOp::Eq, t_cols, i64c(1)));
    let (rows, cols) = match &ix {
        Ix::Range { .. } => {
            let col = lw.hoist(Lowered::new(t_is_column, Ty::scalar(LOGICAL)));
            (pick(col.expr.clone(), &k), pick(not(col.expr), &k))
        }
        Ix::Mask { row, .. } => {
            // The mask's own shape: a row mask gives a row, any other a column.
            let col = lw.hoist(Lowered::new(bin(vrir::BinOp::Or, t_is_column, bin(vrir::BinOp::And, not(t_is_vector), not(row.clone()))), Ty::scalar(LOGICAL)));
            (pick(col.expr.clone(), &k), pick(not(col.expr), &k))
        }
        Ix::Gather { written, .. } => {
            let (wr, wc) = (dim(&written.expr, 0), dim(&written.expr, 1));
            let w_is_vector = bin(vrir::BinOp::Or, bin(vrir::BinOp::Eq, wr.clone(), i64c(1)), bin(vrir::BinOp::Eq, wc.clone(), i64c(1)));
            let orient = lw.hoist(Lowered::new(bin(vrir::BinOp::And, t_is_vector, w_is_vector), Ty::scalar(LOGICAL)));
            let col = lw.hoist(Lowered::new(t_is_column, Ty::scalar(LOGICAL)));
            // orient ? (col ? k x 1 : 1 x k) : wr x wc
            let o = vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(orient.expr.clone()) };
            let no = vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(not(orient.expr)) };
            let rows = bin(vrir::BinOp::Add, bin(vrir::BinOp::Mul, o.clone(), pick(col.expr.clone(), &k)), bin(vrir::BinOp::Mul, no.clone(), wr));
            let cols = bin(vrir::BinOp::Add, bin(vrir::BinOp::Mul, o, pick(not(col.expr), &k)), bin(vrir::BinOp::Mul, no, wc));
            if written.ty.rank > 2 {
                return Err(lw.unsupported("indexing", line, "an index array of more than two dimensions"));
            }
            (rows, cols)
        }
        Ix::Scalar(_) | Ix::All => unreachable!("handled above"),
    };
    Ok(reshape2(lw, v.expr, elem, rows, cols))
}

/// `x(...)` for a scalar `x`: index 1 (or `:`) is `x` itself; other positions fail as in
/// Octave; ranges and arrays index `x` as the 1x1 array it is.
fn read_scalar(lw: &mut Lowerer, t: Lowered, name: &str, indices: &[Option<Expr>], line: Line) -> LResult<Lowered> {
    let mut all_single = true;
    for ix in indices.iter().flatten() {
        let inner = match builtin_call(lw, ix, "__vr_integral") {
            Some([x]) => &x.value,
            _ => ix,
        };
        if builtin_call(lw, inner, "colon").is_some() {
            all_single = false;
        }
    }
    if all_single {
        let mut positions = Vec::new();
        for ix in indices.iter().flatten() {
            let v = match builtin_call(lw, ix, "__vr_integral") {
                Some([x]) => lw.expr(&x.value)?,
                _ => lw.expr(ix)?,
            };
            if v.ty.rank != 0 {
                all_single = false;
                break;
            }
            positions.push(scalar_position(lw, v, true, line)?);
        }
        if all_single {
            for p in positions {
                if !matches!(p, vrir::Expr::Const { value: Literal::I64(1) }) {
                    lw.raise_if(bin(vrir::BinOp::Ne, p, i64c(1)), SCALAR_INDEX);
                }
            }
            return Ok(t);
        }
    }
    let _ = name;
    let arr = one_by_one(lw, t);
    let target = lw.hoist(arr);
    let tmp = lw.bind_value(target);
    let e = Expr::new(ExprKind::Var(tmp.clone()), line);
    let r = read(lw, &e, indices, line);
    lw.unbind(&tmp);
    r
}

/// A scalar as a 1x1 array.
pub fn one_by_one(lw: &Lowerer, v: Lowered) -> Lowered {
    if v.ty.rank > 0 {
        return v;
    }
    let elem = v.ty.elem;
    Lowered::new(
        vrir::Expr::Alloc { init: AllocInit::Fill { value: Box::new(v.expr) }, ty: ArrayType::new(elem, 2, lw.layout()), dims: vec![i64c(1), i64c(1)] },
        v.ty.with_rank(2),
    )
}

/// The element type of an array after storing a value of type `v` into it (MATLAB:
/// double and complex widen a logical or double array; a double into an int32 array is
/// converted). None: int32 into a double array, which MATLAB makes an int32 array.
fn stored_class(array: ScalarType, v: ScalarType) -> Option<ScalarType> {
    match (array, v) {
        (a, b) if a == b => Some(a),
        (INT32, DOUBLE | LOGICAL) => Some(INT32),
        (INT64, DOUBLE | LOGICAL) => Some(INT64),
        (_, INT64) | (INT64, _) => None,
        (_, INT32) => None,
        (LOGICAL, DOUBLE) => Some(DOUBLE),
        (LOGICAL | DOUBLE, COMPLEX) => Some(COMPLEX),
        (DOUBLE | COMPLEX, LOGICAL) | (COMPLEX, DOUBLE) => Some(array),
        (INT32, COMPLEX) => None,
        _ => None,
    }
}

/// A value stored into an array when either has an integer class held in a wider
/// element type: a double or logical into an int8 array is converted as `int8(v)` is
/// (rounded, saturated at the class's bounds); an int8 into a double array, or into
/// an array of another class, is `unsupported` (MATLAB converts the array's class).
fn classed_store(lw: &mut Lowerer, name: &str, at: Ty, v: Lowered, line: Line) -> LResult<Lowered> {
    let what = format!("assignment into `{name}(...)`");
    let shown = |t: Ty| t.class.map(|c| c.name()).unwrap_or(ops::class_name(t.elem));
    let Some(c) = at.class else {
        return Err(lw.unsupported(&what, line, &format!("storing an {} value into a {} array (MATLAB converts the array's class)", shown(v.ty), shown(at))));
    };
    if v.ty.class.is_some_and(|k| k != c) || (v.ty.class.is_none() && !matches!(v.ty.elem, DOUBLE | LOGICAL)) {
        return Err(lw.unsupported(&what, line, &format!("storing a {} value into an {} array (not compiled)", shown(v.ty), c.name())));
    }
    lw.record(name, at, line)?;
    Ok(ops::to_class(lw, v, c))
}

/// `name(indices) = value`.
pub fn assign(lw: &mut Lowerer, name: &str, indices: &[Option<Expr>], value: &Expr, line: Line) -> LResult<()> {
    // `resolve` marks the stores of arrays that grow.
    let (grows, value) = match builtin_call(lw, value, "__vr_grows") {
        Some([v]) => (true, &v.value),
        _ => (false, value),
    };
    let v = lw.expr(value)?;
    let at = lw.var_type(name, line)?;
    if at.rank == 0 {
        return Err(lw.unsupported(&format!("assignment into an index of `{name}`"), line, &format!("`{name}` is a scalar here")));
    }
    let v = if at.class.is_some() || v.ty.class.is_some() {
        classed_store(lw, name, at, v, line)?
    } else {
        let Some(elem) = stored_class(at.elem, v.ty.elem) else {
            return Err(lw.unsupported(
                &format!("assignment into `{name}(...)`"),
                line,
                &format!("storing a {} value into a {} array (MATLAB converts the array's class)", ops::class_name(v.ty.elem), ops::class_name(at.elem)),
            ));
        };
        lw.record(name, at.with_elem(elem), line)?;
        if elem != at.elem && !lw.final_pass() {
            // The array widens; the next round compiles the store with its final type.
            return Err(LErr::NotYet);
        }
        if matches!(at.elem, INT32 | INT64) { ops::to_int(lw, v, at.elem) } else { lw.cast(v, at.elem) }
    };
    let v = lw.hoist(v);
    let var = lw.vrir_var_name(name);
    let t = Lowered::new(vrir::Expr::var(&var), at);
    if indices.is_empty() {
        return Err(lw.unsupported(&format!("`{name}() = ...`"), line, "give an index"));
    }
    let n = indices.len();
    if n as u32 > at.rank {
        return Err(lw.unsupported(&format!("assignment into `{name}(...)`"), line, &format!("{n} indices into a {}-dimensional array", at.rank)));
    }
    let flatten = (n as u32) < at.rank;
    let mut ixs = Vec::new();
    for (k, ix) in indices.iter().enumerate() {
        let extent = extent_of(&t, k, n);
        ixs.push(match ix {
            None => Ix::All,
            Some(e) => convert(lw, e, &extent, line)?,
        });
    }
    if grows {
        // Positions computed from the array itself (`end + 1`) are taken before it grows.
        for ix in ixs.iter_mut() {
            if let Ix::Scalar(i) = ix {
                *i = lw.hoist(Lowered::new(i.clone(), Ty::scalar(ScalarType::I64))).expr;
            }
        }
        grow(lw, &t, &ixs, line);
    }
    let sel_rank = ixs.iter().filter(|x| !x.is_scalar()).count() as u32;
    let value = if v.ty.rank == 0 {
        v.expr
    } else if sel_rank == 0 {
        lw.raise_if(bin(vrir::BinOp::Ne, numel(&v.expr), i64c(1)), ASSIGN_NONCONFORMANT);
        first(&v).expr
    } else if sel_rank == v.ty.rank {
        v.expr
    } else if sel_rank == 1 {
        flat(&v)
    } else {
        return Err(lw.unsupported(&format!("assignment into `{name}(...)`"), line, &format!("a {}-dimensional value into a {sel_rank}-dimensional selection", v.ty.rank)));
    };
    let idx = ixs.iter().map(Ix::vrir).collect();
    lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: var, indices: idx, flags: IndexFlags { flatten, ..IndexFlags::default() } }], value });
    Ok(())
}

/// The largest position an index names (0 when it names none); None for `:` and masks,
/// which never grow an array.
fn needed(lw: &mut Lowerer, ix: &Ix) -> Option<vrir::Expr> {
    match ix {
        Ix::Scalar(i) => Some(i.clone()),
        Ix::Range { start, stop, count, .. } => {
            let m = lib(LibFn::Max, vec![start.clone(), stop.clone()]);
            Some(bin(vrir::BinOp::Mul, m, vrir::Expr::Cast { to: vrir::Type::I64, arg: Box::new(bin(vrir::BinOp::Gt, count.clone(), i64c(0))) }))
        }
        Ix::Gather { positions, .. } => {
            // max(positions), 0 when empty.
            let p = lw.hoist(Lowered::new(positions.clone(), Ty::array(ScalarType::I64, 1)));
            let t = lw.temp(&vrir::Type::I64);
            lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: i64c(0) });
            let set = Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: vrir::Expr::Reduce { op: ReduceOp::Max, arg: Box::new(p.expr.clone()), axis: None, acc: None } }, line: Some(lw.line) };
            lw.emit(StmtKind::If { cond: bin(vrir::BinOp::Gt, numel(&p.expr), i64c(0)), then: Block { on_gpu: false, stmts: vec![set] }, els: None });
            Some(vrir::Expr::var(t))
        }
        Ix::All | Ix::Mask { .. } => None,
    }
}

/// Grow `t` (a variable) so that the positions the indices name exist, as MATLAB does.
fn grow(lw: &mut Lowerer, t: &Lowered, ixs: &[Ix], line: Line) {
    let _ = line;
    let vrir::Expr::Var { name } = &t.expr else { unreachable!("a variable") };
    let name = name.clone();
    let n = ixs.len();
    let needs: Vec<Option<vrir::Expr>> = ixs.iter().map(|ix| needed(lw, ix)).collect();
    if needs.iter().all(Option::is_none) {
        return;
    }
    let elem = t.ty.elem;
    let rank = t.ty.rank;
    // The condition: some index past its extent.
    let mut beyond: Option<vrir::Expr> = None;
    for (k, need) in needs.iter().enumerate() {
        if let Some(need) = need {
            let c = bin(vrir::BinOp::Gt, need.clone(), extent_of(t, k, n));
            beyond = Some(match beyond {
                None => c,
                Some(b) => bin(vrir::BinOp::Or, b, c),
            });
        }
    }
    let beyond = beyond.expect("some index can grow");
    if lw.parallel_depth > 0 || rank != 2 {
        lw.raise_if(beyond, GROWTH);
        return;
    }
    let ty = t.ty.with_rank(2);
    let (r, c) = (dim(&t.expr, 0), dim(&t.expr, 1));
    let (r_ok, body) = lw.in_block(|lw| {
        let (new_r, new_c) = if n == 1 {
            let need = needs[0].clone().expect("checked");
            // Octave's resize1: rows 0 or 1 grow into a row, a column grows down, any
            // other matrix cannot grow by a linear index.
            lw.raise_if(bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, r.clone(), i64c(1)), bin(vrir::BinOp::Ne, c.clone(), i64c(1))), INVALID_RESIZE);
            let as_row = lw.hoist(Lowered::new(bin(vrir::BinOp::Le, r.clone(), i64c(1)), Ty::scalar(LOGICAL)));
            (pick(not(as_row.expr.clone()), &need), pick(as_row.expr, &need))
        } else {
            let mut dims = Vec::new();
            for (k, need) in needs.iter().enumerate() {
                let cur = dim(&t.expr, k as u32);
                dims.push(match need {
                    Some(x) => lib(LibFn::Max, vec![cur, x.clone()]),
                    None => {
                        // `:` over an empty dimension takes the value's extent in
                        // MATLAB.
                        lw.raise_if(bin(vrir::BinOp::Eq, cur.clone(), i64c(0)), GROWTH);
                        cur
                    }
                });
            }
            (dims[0].clone(), dims[1].clone())
        };
        let new = lw.temp(&ty.vrir(lw.layout()));
        let zeros = vrir::Expr::Alloc { init: AllocInit::Zeros, ty: ArrayType::new(elem, 2, lw.layout()), dims: vec![new_r, new_c] };
        lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: new.clone() }], value: zeros });
        let old = [vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(r.clone())), step: None }, vrir::Expr::Range { start: Some(Box::new(i64c(1))), stop: Some(Box::new(c.clone())), step: None }];
        lw.emit(StmtKind::Assign { targets: vec![LValue::Index { array: new.clone(), indices: old.to_vec(), flags: IndexFlags::default() }], value: vrir::Expr::var(&name) });
        lw.emit(StmtKind::Assign { targets: vec![LValue::Var { name: name.clone() }], value: vrir::Expr::var(new) });
        Ok(())
    });
    if r_ok.is_err() {
        return;
    }
    lw.emit(StmtKind::If { cond: beyond, then: Block { on_gpu: false, stmts: body }, els: None });
}

/// `__vr_end(a, k, n)`: what `end` means at index position `k` of `n` into `a`.
pub fn end_value(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let [a, k, n] = args else { unreachable!("resolve writes three arguments") };
    let (ExprKind::Double(k), ExprKind::Double(n)) = (&k.value.kind, &n.value.kind) else { unreachable!("constants") };
    let (k, n) = (*k as usize - 1, *n as usize);
    let t = lw.expr(&a.value)?;
    let e = if t.ty.rank == 0 || k as u32 >= t.ty.rank {
        i64c(1)
    } else {
        extent_of(&t, k, n)
    };
    let _ = line;
    Ok(lw.cast(Lowered::new(e, Ty::scalar(ScalarType::I64)), DOUBLE))
}

/// The rule table's index for `rules::index_value` (unused by MATLAB's own indexing,
/// kept total).
pub fn position(lw: &mut Lowerer, v: Lowered, line: Line) -> LResult<vrir::Expr> {
    scalar_position(lw, v, true, line)
}
