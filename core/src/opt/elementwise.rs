//! Element-wise trees, shared by `fusion` and `reuse` (not a pass): recognising an
//! array expression whose every node applies a scalar operation element by element
//! (arithmetic, comparisons, unary operators, element-wise library math, element
//! casts) over array variables and scalar leaves, and writing it as explicit loops in
//! VRIR: one element of the tree is the same tree of scalar operations on the leaves'
//! elements, so a loop nest computes the whole array with no temporary.
//!
//! Why loops in VRIR (and not a new node): the interpreter and every backend already run
//! them, the verifier checks them, bounds-check elimination and `vr explain` see them,
//! and the scalar operations in the loop body are the ones the element-wise operators
//! apply (`interp::arith`, the cpu backend's `binary`/`lib_apply`/`cast`), so results,
//! integer wrapping and errors per element are the same.
//!
//! What stays out, so that moving work into one loop cannot change what happens: scalar
//! subexpressions other than constants and variables (the original evaluates them once,
//! before any element, and they may fail; random draws among them), calls and maps
//! (user functions), reductions,
//! slices, and `and`/`or` whose right side may fail (a scalar `and` short-circuits).

use crate::vrir::ast::{
    BinOp, Expr, Function, IndexFlags, LValue, LibFn, Literal, Local, Module, Stmt, StmtKind,
};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};
use crate::vrir::verify::expr_type;

/// What a recognised element-wise tree is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The array variables it reads, each once, in evaluation order.
    pub arrays: Vec<String>,
    /// The scalar variables it reads.
    pub scalars: Vec<String>,
    /// Element-wise operations (operator, library and cast nodes).
    pub ops: usize,
    /// Operations that can fail on some element: integer `/`, `idiv`, `mod`, `rem`,
    /// `pow`, and float-to-integer casts.
    pub fallible: usize,
    /// The array type of the whole tree.
    pub ty: ArrayType,
}

/// Whether the element-wise library function `f` applies to each element. Random draws
/// do not: each evaluation draws once, in program order, so one may never be moved into
/// a loop over elements.
fn is_elementwise_lib(f: LibFn) -> bool {
    !matches!(
        f,
        LibFn::Matmul | LibFn::Transpose | LibFn::Copy | LibFn::Len | LibFn::Ndims
    ) && f.random_draw().is_none()
}

/// What one node is: an array (of some rank) or a scalar leaf.
enum Kind {
    Array(u32),
    Scalar,
}

struct Recogniser<'a> {
    m: &'a Module,
    f: &'a Function,
    tree: Tree,
}

impl Recogniser<'_> {
    fn elem_of(&self, e: &Expr) -> Option<ScalarType> {
        match expr_type(self.m, self.f, e).ok()? {
            Type::Scalar { elem } => Some(elem),
            Type::Array(a) => Some(a.elem),
            _ => None,
        }
    }

    fn node(&mut self, e: &Expr) -> Option<Kind> {
        match e {
            Expr::Const { .. } => Some(Kind::Scalar),
            Expr::Var { name } => match self.f.var_type(name)? {
                Type::Array(a) if a.ndims >= 1 => {
                    if !self.tree.arrays.contains(name) {
                        self.tree.arrays.push(name.clone());
                    }
                    Some(Kind::Array(a.ndims))
                }
                Type::Scalar { .. } => {
                    if !self.tree.scalars.contains(name) {
                        self.tree.scalars.push(name.clone());
                    }
                    Some(Kind::Scalar)
                }
                _ => None,
            },
            Expr::Binary { op, lhs, rhs } => {
                let t = self.elem_of(lhs)?;
                let l = self.node(lhs)?;
                let after_lhs = self.tree.fallible;
                let r = self.node(rhs)?;
                if op.is_logical() && self.tree.fallible != after_lhs {
                    // A scalar `and`/`or` would skip the right side's failure.
                    return None;
                }
                self.tree.ops += 1;
                if t.is_int() && matches!(op, BinOp::Div | BinOp::IDiv | BinOp::Mod) {
                    self.tree.fallible += 1;
                }
                self.combine(&[l, r])
            }
            Expr::Unary { arg, .. } => {
                let k = self.node(arg)?;
                self.tree.ops += 1;
                self.combine(&[k])
            }
            Expr::Lib { func, args } if is_elementwise_lib(*func) && args.len() == func.arity() => {
                let t = self.elem_of(args.first()?)?;
                let mut kinds = Vec::with_capacity(args.len());
                for a in args {
                    kinds.push(self.node(a)?);
                }
                self.tree.ops += 1;
                if t.is_int() && matches!(func, LibFn::Rem | LibFn::Pow) {
                    self.tree.fallible += 1;
                }
                self.combine(&kinds)
            }
            Expr::Cast {
                to: Type::Array(to),
                arg,
            } => {
                let from = self.elem_of(arg)?;
                let Kind::Array(n) = self.node(arg)? else {
                    return None;
                };
                if n != to.ndims {
                    return None;
                }
                self.tree.ops += 1;
                if from.is_float() && to.elem.is_int() {
                    self.tree.fallible += 1;
                }
                Some(Kind::Array(n))
            }
            _ => None,
        }
    }

    /// An operation over `kinds`: an array when at least one operand is (all of one
    /// rank); a scalar operation inside the tree is refused (see the module doc).
    fn combine(&self, kinds: &[Kind]) -> Option<Kind> {
        let mut rank = None;
        for k in kinds {
            if let Kind::Array(n) = k {
                if rank.is_some_and(|r| r != *n) {
                    return None;
                }
                rank = Some(*n);
            }
        }
        rank.map(Kind::Array)
    }
}

/// `e` as an element-wise tree (its root an operation), or None.
pub fn recognise(m: &Module, f: &Function, e: &Expr) -> Option<Tree> {
    let ty = match expr_type(m, f, e).ok()? {
        Type::Array(a) => a,
        _ => return None,
    };
    if matches!(e, Expr::Var { .. } | Expr::Const { .. }) {
        return None;
    }
    let mut r = Recogniser {
        m,
        f,
        tree: Tree {
            arrays: Vec::new(),
            scalars: Vec::new(),
            ops: 0,
            fallible: 0,
            ty,
        },
    };
    match r.node(e)? {
        Kind::Array(n) if n == ty.ndims && !r.tree.arrays.is_empty() => Some(r.tree),
        _ => None,
    }
}

/// Element `idx` of the tree `e` (recognised by [`recognise`]): the same operations on
/// scalars, array leaves read at `idx` without a bounds check (the loops built here
/// stay inside the extents the shape test compared).
pub fn element(e: &Expr, idx: &[String], arrays: &[String]) -> Expr {
    match e {
        Expr::Var { name } if arrays.contains(name) => Expr::Index {
            array: Box::new(e.clone()),
            indices: idx.iter().map(Expr::var).collect(),
            flags: IndexFlags {
                check: false,
                ..IndexFlags::default()
            },
        },
        Expr::Binary { op, lhs, rhs } => {
            Expr::binary(*op, element(lhs, idx, arrays), element(rhs, idx, arrays))
        }
        Expr::Unary { op, arg } => Expr::Unary {
            op: *op,
            arg: Box::new(element(arg, idx, arrays)),
        },
        Expr::Lib { func, args } => Expr::Lib {
            func: *func,
            args: args.iter().map(|a| element(a, idx, arrays)).collect(),
        },
        Expr::Cast {
            to: Type::Array(to),
            arg,
        } => Expr::Cast {
            to: Type::scalar(to.elem),
            arg: Box::new(element(arg, idx, arrays)),
        },
        other => other.clone(),
    }
}

/// `(dim a k)`.
pub fn dim(a: &str, k: u32) -> Expr {
    Expr::Dim {
        arg: Box::new(Expr::var(a)),
        axis: k,
    }
}

/// `e1 and e2 and ...`, None for no terms.
pub fn all_of(terms: Vec<Expr>) -> Option<Expr> {
    terms
        .into_iter()
        .reduce(|a, b| Expr::binary(BinOp::And, a, b))
}

/// The test that every array of `arrays` has the extents of the first (ranks are equal
/// by recognition); None when there is only one array.
pub fn same_shape_test(arrays: &[String], ndims: u32) -> Option<Expr> {
    let first = arrays.first()?;
    let terms = arrays[1..]
        .iter()
        .flat_map(|a| (0..ndims).map(move |k| Expr::binary(BinOp::Eq, dim(first, k), dim(a, k))))
        .collect();
    all_of(terms)
}

/// A fresh local of type `ty` named `prefix` + a number.
pub fn fresh_local(f: &mut Function, prefix: &str, ty: Type) -> String {
    let mut n = 1;
    loop {
        let name = format!("{prefix}{n}");
        if f.var_type(&name).is_none() {
            f.locals.push(Local {
                name: name.clone(),
                ty,
            });
            return name;
        }
        n += 1;
    }
}

/// A loop nest over every multi-index of `extents` (expressions of type i64) with loop
/// variables `idx` (one per dimension, fresh i64 locals). `storage_col`: visit the first
/// index fastest (column-major storage order); otherwise the last index fastest (logical
/// order, and row-major storage order).
pub fn loop_nest(
    index_base: u8,
    idx: &[String],
    extents: Vec<Expr>,
    storage_col: bool,
    body: Vec<Stmt>,
    line: Option<u32>,
) -> Stmt {
    let base = index_base as i64;
    let mut ranges: Vec<(String, Expr)> = idx
        .iter()
        .cloned()
        .zip(extents.into_iter().map(|n| Expr::Range {
            start: Some(Box::new(Expr::i64(base))),
            // Stops are inclusive: the last index is n - 1 + base.
            stop: Some(Box::new(if base == 1 {
                n
            } else {
                Expr::binary(BinOp::Sub, n, Expr::i64(1 - base))
            })),
            step: None,
        }))
        .collect();
    if storage_col {
        ranges.reverse();
    }
    let (vars, ranges): (Vec<String>, Vec<Expr>) = ranges.into_iter().unzip();
    let domain = if ranges.len() == 1 {
        ranges.into_iter().next().unwrap_or(Expr::i64(0))
    } else {
        Expr::Domain { ranges }
    };
    Stmt {
        kind: StmtKind::For {
            vars,
            domain,
            body: crate::vrir::ast::Block {
                on_gpu: false,
                stmts: body,
            },
        },
        line,
    }
}

/// `(set (index a idx... :nocheck) value)`.
pub fn store(a: &str, idx: &[String], value: Expr, line: Option<u32>) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            targets: vec![LValue::Index {
                array: a.to_string(),
                indices: idx.iter().map(Expr::var).collect(),
                flags: IndexFlags {
                    check: false,
                    ..IndexFlags::default()
                },
            }],
            value,
        },
        line,
    }
}

/// `(set v value)`.
pub fn assign(v: &str, value: Expr, line: Option<u32>) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            targets: vec![LValue::Var {
                name: v.to_string(),
            }],
            value,
        },
        line,
    }
}

/// Loops over fewer elements stay serial under [`parallel_when_large`]: below this the
/// cost of starting workers exceeds the work (the cpu backend's own threshold for
/// element-wise operators, `cpu/codegen/par_elementwise.rs`).
pub const PARALLEL_MIN_ELEMENTS: i64 = 1 << 16;

/// A loop nest from [`loop_nest`] whose iterations are independent (each writes its own
/// element; nothing in it can fail, so no order of errors is to keep), for a backend
/// that runs `parfor` in parallel: `(if (>= COUNT MIN) (parfor ...) (for ...))`, where
/// COUNT is the product of `extents`. Anything else is returned as it is.
pub fn parallel_when_large(nest: Stmt, extents: &[Expr]) -> Stmt {
    let StmtKind::For { vars, domain, body } = &nest.kind else {
        return nest;
    };
    let Some(count) = extents.iter().cloned().reduce(|a, b| Expr::binary(BinOp::Mul, a, b)) else {
        return nest;
    };
    let parallel = Stmt {
        kind: StmtKind::Parfor {
            vars: vars.clone(),
            domain: domain.clone(),
            body: body.clone(),
        },
        line: nest.line,
    };
    let line = nest.line;
    Stmt {
        kind: StmtKind::If {
            cond: Expr::binary(BinOp::Ge, count, Expr::i64(PARALLEL_MIN_ELEMENTS)),
            then: crate::vrir::ast::Block { on_gpu: false, stmts: vec![parallel] },
            els: Some(crate::vrir::ast::Block { on_gpu: false, stmts: vec![nest] }),
        },
        line,
    }
}

/// Whether a loop over `ty`'s elements in its storage order visits them in logical
/// order too (what an element that may fail needs: the first failing element is the
/// same).
pub fn storage_is_logical(ty: &ArrayType) -> bool {
    ty.layout != Layout::Col || ty.ndims <= 1
}

/// The identity of `sum` (0) or `prod` (1) in element type `t`, None for bool.
pub fn identity(t: ScalarType, one: bool) -> Option<Expr> {
    let v = if one { 1.0 } else { 0.0 };
    let lit = match t {
        ScalarType::Bool => return None,
        ScalarType::I32 => Literal::I32(v as i32),
        ScalarType::I64 => Literal::I64(v as i64),
        ScalarType::F32 => Literal::F32(v as f32),
        ScalarType::F64 => Literal::F64(v),
        ScalarType::C64 => Literal::C64([v as f32, 0.0]),
        ScalarType::C128 => Literal::C128([v, 0.0]),
    };
    Some(Expr::lit(lit))
}

/// How many times the function mentions `name`: reads, assignment targets (variables
/// and arrays written element-wise), allocations, frees, reference counts, loop
/// variables, atomics.
pub fn mentions(body: &[Stmt], name: &str) -> usize {
    let mut n = 0;
    crate::analysis::walk_body_exprs(body, &mut |e| match e {
        Expr::Var { name: v } if v == name => n += 1,
        Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } if array == name => n += 1,
        _ => {}
    });
    crate::analysis::walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign { targets, .. } => {
            for t in targets {
                match t {
                    LValue::Var { name: v } | LValue::Index { array: v, .. } if v == name => n += 1,
                    _ => {}
                }
            }
        }
        StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
            n += vars.iter().filter(|v| *v == name).count()
        }
        StmtKind::Alloc { var, .. }
        | StmtKind::Free { var }
        | StmtKind::RefIncr { var }
        | StmtKind::RefDecr { var }
            if var == name =>
        {
            n += 1
        }
        _ => {}
    });
    n
}
