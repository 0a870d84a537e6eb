//! Whole-array loops: copies (`copy`, slices without `:view`), element-wise operators
//! with scalar broadcasting and element-wise casts, into fresh arrays from the arena. Elements are visited in logical order (first index slowest), as the
//! interpreter visits them, so the first failing element is the same.

use super::{ArrayView, CodeGen, FnGen, Val};
use super::fused_accumulate::Elements;
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{BinOp, Expr, LibFn, UnOp};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

/// The layout of a freshly computed array derived from an operand of layout `l` (the
/// interpreter's rule: `strided` becomes `row`).
pub(crate) fn fresh_layout(l: Layout) -> Layout {
    if l == Layout::Strided {
        Layout::Row
    } else {
        l
    }
}

/// Body of an n-dimensional loop: receives the multi-index.
type NdBody<'a, 'ctx, 'm> =
    dyn FnMut(&mut CodeGen<'ctx, 'm>, &mut FnGen<'ctx, 'm>, &[IntValue<'ctx>]) -> VrResult<()> + 'a;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Emit loops over every multi-index of `dims` in logical order.
    pub(crate) fn nd_loop(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        dims: &[IntValue<'ctx>],
        body: &mut NdBody<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        let mut idx = Vec::with_capacity(dims.len());
        self.nd_level(g, dims, &mut idx, body)
    }

    fn nd_level(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        dims: &[IntValue<'ctx>],
        idx: &mut Vec<IntValue<'ctx>>,
        body: &mut NdBody<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        if idx.len() == dims.len() {
            return body(self, g, idx);
        }
        let extent = dims[idx.len()];
        self.counted_loop(g, extent, |s, g, i| {
            idx.push(i);
            let r = s.nd_level(g, dims, idx, body);
            idx.pop();
            r
        })
    }

    /// Address of the element at multi-index `idx` (in range) of `a`.
    pub(crate) fn elem_addr(
        &self,
        g: &FnGen<'ctx, 'm>,
        a: &ArrayView<'ctx>,
        idx: &[IntValue<'ctx>],
    ) -> VrResult<PointerValue<'ctx>> {
        let mut off = self.i64c(0);
        for (i, s) in idx.iter().zip(&a.strides) {
            let t = self.builder.build_int_mul(*i, *s, "")?;
            off = self.builder.build_int_add(off, t, "")?;
        }
        let mt = self.mem_type(a.ty.elem, &g.f.name)?;
        Ok(unsafe { self.builder.build_gep(mt, a.data, &[off], "")? })
    }

    /// A fresh array of layout `layout` holding the elements of `src`.
    pub(crate) fn copy_of(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        src: &ArrayView<'ctx>,
        layout: Layout,
    ) -> VrResult<ArrayView<'ctx>> {
        let ty = ArrayType::new(src.ty.elem, src.ty.ndims, layout);
        let out = self.alloc_with_dims(g, ty, &src.dims)?;
        let mt = self.mem_type(src.ty.elem, &g.f.name)?;
        let (s, o) = (src.clone(), out.clone());
        self.nd_loop(g, &src.dims, &mut |cg, g, idx| {
            let v = cg.builder.build_load(mt, cg.elem_addr(g, &s, idx)?, "")?;
            cg.builder.build_store(cg.elem_addr(g, &o, idx)?, v)?;
            Ok(())
        })?;
        Ok(out)
    }

    /// The declared array type of a variable, when `e` is one.
    pub(crate) fn declared_array_type(&self, g: &FnGen<'ctx, 'm>, e: &Expr) -> Option<ArrayType> {
        let Expr::Var { name } = e else { return None };
        g.f.params
            .iter()
            .map(|p| (&p.name, &p.ty))
            .chain(g.f.locals.iter().map(|l| (&l.name, &l.ty)))
            .find(|(n, _)| *n == name)
            .and_then(|(_, t)| t.as_array())
    }
}

/// Computes one result element from the operands' elements.
pub(crate) type ElemFn<'a, 'ctx, 'm> = dyn FnMut(&mut CodeGen<'ctx, 'm>, &mut FnGen<'ctx, 'm>, &[Val<'ctx>]) -> VrResult<Val<'ctx>>
    + 'a;

/// One operand of an element-wise operation: an array, or a scalar broadcast over it.
#[derive(Clone)]
pub(crate) enum Operand<'ctx> {
    Array(ArrayView<'ctx>),
    Scalar(Val<'ctx>),
}

impl<'ctx> Operand<'ctx> {
    fn elem(&self) -> ScalarType {
        match self {
            Operand::Array(a) => a.ty.elem,
            Operand::Scalar(v) => v.ty,
        }
    }
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Is `e` array-valued? Decided from declared types, without evaluating it.
    pub(crate) fn is_array_expr(&self, g: &FnGen<'ctx, 'm>, e: &Expr) -> bool {
        match e {
            Expr::Var { .. } => self.declared_array_type(g, e).is_some(),
            Expr::Alloc { .. } | Expr::Map { .. } => true,
            Expr::TupleGet { .. } => matches!(self.static_type(g, e), Some(Type::Array(_))),
            Expr::Index {
                array,
                indices,
                flags,
            } => flags.view || self.is_slice(g, array, indices, *flags),
            Expr::Binary { lhs, rhs, .. } => {
                self.is_array_expr(g, lhs) || self.is_array_expr(g, rhs)
            }
            Expr::Unary { arg, .. } => self.is_array_expr(g, arg),
            Expr::Cast { to, .. } => matches!(to, Type::Array(_)),
            Expr::Call { func, .. } => self
                .vm
                .function(func)
                .is_some_and(|f| matches!(f.results.as_slice(), [Type::Array(_)])),
            Expr::Lib {
                func: LibFn::Copy | LibFn::Transpose,
                ..
            } => true,
            // Scalars computed from an array.
            Expr::Lib {
                func: LibFn::Len | LibFn::Ndims,
                ..
            } => false,
            // A dot product is a scalar; every other matmul an array.
            Expr::Lib {
                func: LibFn::Matmul,
                ..
            } => crate::vrir::verify::expr_type(self.vm, g.f, e)
                .is_ok_and(|t| matches!(t, Type::Array(_))),
            Expr::Lib { args, .. } => args.iter().any(|a| self.is_array_expr(g, a)),
            Expr::Reduce { axis, arg, .. } => {
                axis.is_some() && self.declared_array_type(g, arg).is_none_or(|t| t.ndims > 1)
            }
            Expr::Scan { .. } => true,
            _ => false,
        }
    }

    /// Is `(index array indices...)` (without `:view`) array-valued: a slice, gather or
    /// mask (see `selection.rs`)?
    pub(crate) fn is_slice(
        &self,
        g: &FnGen<'ctx, 'm>,
        array: &Expr,
        indices: &[Expr],
        flags: crate::vrir::ast::IndexFlags,
    ) -> bool {
        self.selection_is_array(g, array, indices, flags)
    }

    /// Evaluate an element-wise operand.
    pub(crate) fn operand(&mut self, g: &mut FnGen<'ctx, 'm>, e: &Expr) -> VrResult<Operand<'ctx>> {
        if self.is_array_expr(g, e) {
            Ok(Operand::Array(self.array_arg(g, e)?.0))
        } else {
            Ok(Operand::Scalar(self.expr(g, e)?))
        }
    }

    pub(crate) fn load_operand(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        o: &Operand<'ctx>,
        idx: &[IntValue<'ctx>],
    ) -> VrResult<Val<'ctx>> {
        match o {
            Operand::Scalar(v) => Ok(*v),
            Operand::Array(a) => {
                let raw = self.builder.build_load(
                    self.mem_type(a.ty.elem, &g.f.name)?,
                    self.elem_addr(g, a, idx)?,
                    "",
                )?;
                Ok(Val {
                    v: self.mem_to_reg(raw, a.ty.elem)?,
                    ty: a.ty.elem,
                })
            }
        }
    }

    /// Fail with the interpreter's shape-mismatch error unless `a` and `b` have equal
    /// extents (and ranks).
    pub(crate) fn check_same_shape(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        a: &ArrayView<'ctx>,
        b: &ArrayView<'ctx>,
    ) -> VrResult<()> {
        let mut ok = self
            .cx
            .bool_type()
            .const_int((a.dims.len() == b.dims.len()) as u64, false);
        for (x, y) in a.dims.iter().zip(&b.dims) {
            let eq = self
                .builder
                .build_int_compare(IntPredicate::EQ, *x, *y, "")?;
            ok = self.builder.build_and(ok, eq, "")?;
        }
        let vals: Vec<IntValue<'ctx>> = a.dims.iter().chain(&b.dims).copied().collect();
        let extra = (
            self.i64c(a.dims.len() as i64),
            self.i64c(b.dims.len() as i64),
            self.i64c(-1),
        );
        self.check_noted(
            g,
            ok,
            ErrorCode::ShapeMismatch,
            None,
            Some(extra),
            Some(("", &vals)),
        )
    }

    /// A fresh array of `ty` with `shape`'s extents, element k being `f` of the
    /// operands' elements k (scalars broadcast), in logical order.
    pub(crate) fn map_into(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        ty: ArrayType,
        shape: &ArrayView<'ctx>,
        ops: Vec<Operand<'ctx>>,
        f: &mut ElemFn<'_, 'ctx, 'm>,
    ) -> VrResult<ArrayView<'ctx>> {
        let out = self.alloc_with_dims(g, ty, &shape.dims)?;
        if self.parallel && !shape.dims.is_empty() {
            // cpu-par: large arrays on the thread pool (par_elementwise.rs).
            self.map_elements_parallel(g, &out, &ops, f)?;
        } else {
            self.map_elements(g, &out, &[], &ops, f)?;
        }
        Ok(out)
    }

    /// Element k of `out` = `f` of the operands' elements k (same extents as `out`),
    /// over every multi-index that starts with `prefix`, in logical order.
    pub(crate) fn map_elements(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        out: &ArrayView<'ctx>,
        prefix: &[IntValue<'ctx>],
        ops: &[Operand<'ctx>],
        f: &mut ElemFn<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        let o = out.clone();
        self.nd_loop(g, &out.dims[prefix.len()..], &mut |cg, g, rest| {
            let idx: Vec<IntValue<'ctx>> = prefix.iter().chain(rest).copied().collect();
            let mut xs = Vec::with_capacity(ops.len());
            for op in ops {
                xs.push(cg.load_operand(g, op, &idx)?);
            }
            let v = f(cg, g, &xs)?;
            if v.ty != o.ty.elem {
                return Err(cg.type_err(g, format!("element of {} stored in {}", v.ty, o.ty)));
            }
            let m = cg.reg_to_mem(v)?;
            cg.builder.build_store(cg.elem_addr(g, &o, &idx)?, m)?;
            Ok(())
        })
    }

    /// `(op a b)` with at least one array operand: element-wise with scalar broadcasting;
    /// `and`/`or` do not short-circuit on arrays.
    pub(crate) fn elementwise_binary(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
    ) -> VrResult<ArrayView<'ctx>> {
        let a = self.operand(g, lhs)?;
        let b = self.operand(g, rhs)?;
        if a.elem() != b.elem() {
            return Err(self.type_err(
                g,
                format!("`{}` of {} and {}", op.symbol(), a.elem(), b.elem()),
            ));
        }
        let shape = match (&a, &b) {
            (Operand::Array(x), Operand::Array(y)) => {
                self.check_same_shape(g, x, y)?;
                x.clone()
            }
            (Operand::Array(x), _) | (_, Operand::Array(x)) => x.clone(),
            _ => return Err(self.type_err(g, "element-wise operation on two scalars".into())),
        };
        let t = a.elem();
        let out_elem = if op.is_comparison() || op.is_logical() {
            ScalarType::Bool
        } else {
            t
        };
        let ty = ArrayType::new(out_elem, shape.ty.ndims, fresh_layout(shape.ty.layout));
        self.map_into(g, ty, &shape, vec![a, b], &mut |cg, g, xs| match op {
            BinOp::And | BinOp::Or if t == ScalarType::Bool => {
                let v = if op == BinOp::And {
                    cg.builder.build_and(xs[0].int(), xs[1].int(), "")?
                } else {
                    cg.builder.build_or(xs[0].int(), xs[1].int(), "")?
                };
                Ok(Val {
                    v: v.into(),
                    ty: ScalarType::Bool,
                })
            }
            _ => cg.binary(g, op, xs[0], xs[1]),
        })
    }

    /// An element-wise library function (arity 1 or 2) with at least one array
    /// argument; two operands broadcast and are shape-checked as for operators.
    pub(crate) fn elementwise_lib(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: LibFn,
        args: &[Expr],
    ) -> VrResult<ArrayView<'ctx>> {
        if args.len() != func.arity() || !(1..=2).contains(&args.len()) {
            return Err(self.type_err(
                g,
                format!("`{}` with {} arguments", func.name(), args.len()),
            ));
        }
        let mut ops = Vec::with_capacity(args.len());
        for a in args {
            ops.push(self.operand(g, a)?);
        }
        let t = ops[0].elem();
        if ops.iter().any(|o| o.elem() != t) {
            return Err(self.type_err(g, format!("`{}` of mixed element types", func.name())));
        }
        let shape = match ops.as_slice() {
            [Operand::Array(x), Operand::Array(y)] => {
                self.check_same_shape(g, x, y)?;
                x.clone()
            }
            [Operand::Array(x)] | [Operand::Array(x), _] | [_, Operand::Array(x)] => x.clone(),
            _ => return Err(self.type_err(g, format!("`{}` of scalars", func.name()))),
        };
        let out_elem = super::complex::lib_result_type(func, t);
        let ty = ArrayType::new(out_elem, shape.ty.ndims, fresh_layout(shape.ty.layout));
        self.map_into(g, ty, &shape, ops, &mut |cg, g, xs| {
            cg.lib_apply(g, func, xs[0], xs.get(1).copied())
        })
    }

    /// `(op a)` of an array: element-wise.
    pub(crate) fn elementwise_unary(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: UnOp,
        arg: &Expr,
    ) -> VrResult<ArrayView<'ctx>> {
        let (a, _) = self.array_arg(g, arg)?;
        let ty = ArrayType::new(a.ty.elem, a.ty.ndims, fresh_layout(a.ty.layout));
        self.map_into(
            g,
            ty,
            &a.clone(),
            vec![Operand::Array(a)],
            &mut |cg, g, xs| cg.unary(g, op, xs[0]),
        )
    }

    /// `(cast T[n,layout] a)`: element-wise checked casts into an array of `to`.
    pub(crate) fn elementwise_cast(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        to: ArrayType,
        arg: &Expr,
    ) -> VrResult<ArrayView<'ctx>> {
        let (a, name) = self.array_arg(g, arg)?;
        if a.ty.ndims != to.ndims {
            return Err(self.type_err(g, format!("cast of `{name}` ({}) to {to}", a.ty)));
        }
        self.map_into(
            g,
            to,
            &a.clone(),
            vec![Operand::Array(a)],
            &mut |cg, g, xs| cg.cast(g, xs[0], to.elem),
        )
    }
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// `(sum|prod|amin|amax A)` over the whole array, accumulating sequentially in the
    /// storage order of A's type (column-major: first index fastest; otherwise last index
    /// fastest) from 0 (`sum`), 1 (`prod`) or the first element (`amin`/`amax`, where an
    /// empty array is the interpreter's run-time error): bit-identical to the interpreter.
    /// On `cpu-par`, large integer arrays are folded in parallel (`par_reduce.rs`: exact,
    /// since their operations are associative and commutative).
    /// With an accumulator type, and for the means, `accumulate.rs` (always serial).
    pub(crate) fn reduce_all(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: crate::vrir::ast::ReduceOp,
        arg: &Expr,
        acc: Option<crate::vrir::ast::Accum>,
    ) -> VrResult<Val<'ctx>> {
        if Self::is_accumulated(op, acc) {
            if self.folds_tree(g, arg) {
                let tree = self.tree_elements(g, arg)?;
                return self.reduce_accumulated(g, op, acc, &tree, true);
            }
            let (a, _) = self.array_arg(g, arg)?;
            return self.reduce_accumulated(g, op, acc, &Elements::Array(&a), true);
        }
        let (a, _) = self.array_arg(g, arg)?;
        if self.reduction_is_parallel(op, &a) {
            let whole = a.clone();
            return self.reduce_view_parallel(g, op, &a, &mut |cg, g| {
                cg.reduce_view(g, op, &whole)
            });
        }
        self.reduce_view(g, op, &a)
    }

    /// `(op A :axis k)`: for a vector, the fold of its elements from index 0 upwards;
    /// otherwise a fresh array (A's extents without axis k) each of whose elements folds
    /// A's elements along the axis from index 0 upwards, in logical order.
    pub(crate) fn reduce_axis(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: crate::vrir::ast::ReduceOp,
        arg: &Expr,
        k: u32,
        acc: Option<crate::vrir::ast::Accum>,
    ) -> VrResult<Operand<'ctx>> {
        let (a, name) = self.array_arg(g, arg)?;
        let k = k as usize;
        if k >= a.dims.len() {
            return Err(self.type_err(g, format!("reduction axis {k} of `{name}`")));
        }
        let line_of = |a: &ArrayView<'ctx>, data| ArrayView {
            ty: ArrayType::new(a.ty.elem, 1, Layout::Row),
            desc: a.desc,
            data,
            dims: vec![a.dims[k]],
            strides: vec![a.strides[k]],
        };
        // One lane: the element-type fold, or the accumulator's (`accumulate.rs`).
        let lane = |cg: &mut Self, g: &mut FnGen<'ctx, 'm>, line: &ArrayView<'ctx>| {
            if Self::is_accumulated(op, acc) {
                cg.reduce_accumulated(g, op, acc, &Elements::Array(line), false)
            } else {
                cg.reduce_view(g, op, line)
            }
        };
        if a.dims.len() == 1 {
            let line = line_of(&a, a.data);
            return Ok(Operand::Scalar(lane(self, g, &line)?));
        }
        let mut out_dims = a.dims.clone();
        out_dims.remove(k);
        let ty = ArrayType::new(a.ty.elem, out_dims.len() as u32, fresh_layout(a.ty.layout));
        let out = self.alloc_with_dims(g, ty, &out_dims)?;
        let (src, o) = (a.clone(), out.clone());
        let mt = self.mem_type(a.ty.elem, &g.f.name)?;
        self.nd_loop(g, &out_dims, &mut |cg, g, idx| {
            let mut off = cg.i64c(0);
            let strides = src
                .strides
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, s)| *s);
            for (i, st) in idx.iter().zip(strides) {
                let t = cg.builder.build_int_mul(*i, st, "")?;
                off = cg.builder.build_int_add(off, t, "")?;
            }
            let data = unsafe { cg.builder.build_gep(mt, src.data, &[off], "")? };
            let v = lane(cg, g, &line_of(&src, data))?;
            let m = cg.reg_to_mem(v)?;
            cg.builder.build_store(cg.elem_addr(g, &o, idx)?, m)?;
            Ok(())
        })?;
        Ok(Operand::Array(out))
    }

    /// The fold of every element of `a` in the storage order of its type.
    fn reduce_view(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: crate::vrir::ast::ReduceOp,
        a: &ArrayView<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        use crate::vrir::ast::ReduceOp;
        let a = a.clone();
        let t = a.ty.elem;
        let mt = self.mem_type(t, &g.f.name)?;
        let acc = g.alloca_builder.build_alloca(mt, "acc")?;
        let first = g
            .alloca_builder
            .build_alloca(self.cx.bool_type(), "first")?;
        let init = match op {
            ReduceOp::Sum => Some(self.zero(g, t)?),
            ReduceOp::Prod => Some(self.one(g, t)?),
            ReduceOp::Min | ReduceOp::Max => None,
            ReduceOp::Mean | ReduceOp::MeanRefined => {
                return Err(self.type_err(g, format!("`{}` as a plain fold", op.name())))
            }
        };
        match init {
            Some(v) => {
                let m = self.reg_to_mem(v)?;
                self.builder.build_store(acc, m)?;
            }
            None => {
                let n = self.element_count(&a)?;
                let ok = self
                    .builder
                    .build_int_compare(IntPredicate::SGT, n, self.i64c(0), "")?;
                self.check(
                    g,
                    ok,
                    ErrorCode::EmptyReduction,
                    None,
                    Some((self.i64c(op as i64), self.i64c(0), self.i64c(-1))),
                )?;
                self.builder.build_store(acc, mt.const_zero())?;
            }
        }
        self.builder
            .build_store(first, self.cx.bool_type().const_all_ones())?;
        // Loop order: for column-major types the last dimension outermost.
        let col = a.ty.layout == Layout::Col;
        let order: Vec<IntValue<'ctx>> = if col {
            a.dims.iter().rev().copied().collect()
        } else {
            a.dims.clone()
        };
        let view = a.clone();
        self.nd_loop(g, &order, &mut |cg, g, loop_idx| {
            let idx: Vec<IntValue<'ctx>> = if col {
                loop_idx.iter().rev().copied().collect()
            } else {
                loop_idx.to_vec()
            };
            let x = cg.load_operand(g, &Operand::Array(view.clone()), &idx)?;
            let raw = cg.builder.build_load(mt, acc, "")?;
            let cur = Val {
                v: cg.mem_to_reg(raw, t)?,
                ty: t,
            };
            let next = match op {
                ReduceOp::Sum => cg.binary(g, BinOp::Add, cur, x)?,
                ReduceOp::Prod => cg.binary(g, BinOp::Mul, cur, x)?,
                ReduceOp::Mean | ReduceOp::MeanRefined => unreachable!("refused above"),
                ReduceOp::Min | ReduceOp::Max => {
                    let f = if op == ReduceOp::Min {
                        LibFn::Min
                    } else {
                        LibFn::Max
                    };
                    let folded = cg.lib_apply(g, f, cur, Some(x))?;
                    let is_first = cg
                        .builder
                        .build_load(cg.cx.bool_type(), first, "")?
                        .into_int_value();
                    Val {
                        v: cg.builder.build_select(is_first, x.v, folded.v, "")?,
                        ty: t,
                    }
                }
            };
            let m = cg.reg_to_mem(next)?;
            cg.builder.build_store(acc, m)?;
            cg.builder
                .build_store(first, cg.cx.bool_type().const_zero())?;
            Ok(())
        })?;
        let raw = self.builder.build_load(mt, acc, "")?;
        Ok(Val {
            v: self.mem_to_reg(raw, t)?,
            ty: t,
        })
    }

    pub(crate) fn zero(&mut self, g: &mut FnGen<'ctx, 'm>, t: ScalarType) -> VrResult<Val<'ctx>> {
        Ok(Val {
            v: self.reg_type(t, &g.f.name)?.const_zero(),
            ty: t,
        })
    }
}
