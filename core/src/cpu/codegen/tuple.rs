//! Values that are neither scalars nor arrays: tuples, ranges and domains, held in
//! locals, passed to and returned from functions, taken apart by `tget`, `mset` and
//! loops.
//!
//! In generated code such a value is an [`AnyVal`] (its parts as SSA values); in memory
//! (a local's slot, a parameter, a result slot) it has the LLVM type of
//! [`CodeGen::value_mem_type`]: a range is `{i64, i64, i64}` (start, inclusive stop,
//! step), a domain an array of ranges, a tuple the struct of its items, an array item
//! `{ptr data, [n x i64] dims, [n x i64] strides}` (a reference: tuples hold arrays by
//! reference), a scalar item its memory type. `cpu/marshal_value.rs` reads and writes
//! the same layout (LLVM's natural struct layout, which is C's) on the Rust side.

use super::stmt::CallOut;
use super::{ArrayView, CodeGen, FnGen, Slot, Val};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::Expr;
use crate::vrir::types::{ScalarType, Type};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

/// A range's start, inclusive stop and (non-zero) step, as i64.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RangeParts<'ctx> {
    pub start: IntValue<'ctx>,
    pub stop: IntValue<'ctx>,
    pub step: IntValue<'ctx>,
}

/// Any value generated code handles.
#[derive(Clone, Debug)]
pub(crate) enum AnyVal<'ctx> {
    Scalar(Val<'ctx>),
    Array(ArrayView<'ctx>),
    Range(RangeParts<'ctx>),
    Domain(Vec<RangeParts<'ctx>>),
    Tuple(Vec<AnyVal<'ctx>>),
}

impl<'ctx> AnyVal<'ctx> {
    fn kind(&self) -> &'static str {
        match self {
            AnyVal::Scalar(_) => "scalar",
            AnyVal::Array(_) => "array",
            AnyVal::Range(_) => "range",
            AnyVal::Domain(_) => "domain",
            AnyVal::Tuple(_) => "tuple",
        }
    }
}

/// Does the type need the compound representation of this file?
pub(crate) fn is_compound(t: &Type) -> bool {
    matches!(t, Type::Range | Type::Domain { .. } | Type::Tuple { .. })
}

impl<'ctx> From<CallOut<'ctx>> for AnyVal<'ctx> {
    fn from(o: CallOut<'ctx>) -> AnyVal<'ctx> {
        match o {
            CallOut::Scalar(v) => AnyVal::Scalar(v),
            CallOut::Array(a) => AnyVal::Array(a),
            CallOut::Value(v) => v,
        }
    }
}

impl<'ctx> From<AnyVal<'ctx>> for CallOut<'ctx> {
    fn from(v: AnyVal<'ctx>) -> CallOut<'ctx> {
        match v {
            AnyVal::Scalar(v) => CallOut::Scalar(v),
            AnyVal::Array(a) => CallOut::Array(a),
            other => CallOut::Value(other),
        }
    }
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// The memory type of a value of type `t` (see the module doc).
    pub(crate) fn value_mem_type(&self, t: &Type, func: &str) -> VrResult<BasicTypeEnum<'ctx>> {
        let i64t = self.cx.i64_type();
        let range = self
            .cx
            .struct_type(&[i64t.into(), i64t.into(), i64t.into()], false);
        Ok(match t {
            Type::Scalar { elem } => self.mem_type(*elem, func)?,
            Type::Array(a) => {
                self.reg_type(a.elem, func)?;
                let v = i64t.array_type(a.ndims);
                self.cx
                    .struct_type(&[self.ptr_type().into(), v.into(), v.into()], false)
                    .into()
            }
            Type::Range => range.into(),
            Type::Domain { ndims } => range.array_type(*ndims).into(),
            Type::Tuple { items } => {
                let mut fields = Vec::with_capacity(items.len());
                for i in items {
                    fields.push(self.value_mem_type(i, func)?);
                }
                self.cx.struct_type(&fields, false).into()
            }
            other => {
                return Err(super::unsupported(
                    &format!("value of type `{other}`"),
                    func,
                ))
            }
        })
    }

    /// Pointer to field `k` of a value of memory type `mt` at `p`.
    fn field_ptr(
        &self,
        mt: BasicTypeEnum<'ctx>,
        p: PointerValue<'ctx>,
        k: u32,
    ) -> VrResult<PointerValue<'ctx>> {
        let i32t = self.cx.i32_type();
        Ok(unsafe {
            self.builder.build_in_bounds_gep(
                mt,
                p,
                &[i32t.const_zero(), i32t.const_int(k as u64, false)],
                "",
            )?
        })
    }

    /// Write `v` (of type `t`) to memory at `p`.
    pub(crate) fn store_value(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        p: PointerValue<'ctx>,
        t: &Type,
        v: &AnyVal<'ctx>,
    ) -> VrResult<()> {
        let mt = self.value_mem_type(t, &g.f.name)?;
        match (t, v) {
            (Type::Scalar { elem }, AnyVal::Scalar(x)) if x.ty == *elem => {
                self.builder.build_store(p, self.reg_to_mem(*x)?)?;
            }
            (Type::Array(at), AnyVal::Array(a))
                if a.ty.elem == at.elem && a.ty.ndims == at.ndims =>
            {
                self.builder
                    .build_store(self.field_ptr(mt, p, 0)?, a.data)?;
                let i64t = self.cx.i64_type();
                let vt = i64t.array_type(at.ndims);
                for (f, vals) in [(1u32, &a.dims), (2u32, &a.strides)] {
                    let base = self.field_ptr(mt, p, f)?;
                    for (k, x) in vals.iter().enumerate() {
                        let q = self.field_ptr(vt.into(), base, k as u32)?;
                        self.builder.build_store(q, *x)?;
                    }
                }
            }
            (Type::Range, AnyVal::Range(r)) => self.store_range(mt, p, r)?,
            (Type::Domain { ndims }, AnyVal::Domain(rs)) if rs.len() == *ndims as usize => {
                let rt = self.value_mem_type(&Type::Range, &g.f.name)?;
                for (k, r) in rs.iter().enumerate() {
                    let q = self.field_ptr(mt, p, k as u32)?;
                    self.store_range(rt, q, r)?;
                }
            }
            (Type::Tuple { items }, AnyVal::Tuple(vs)) if items.len() == vs.len() => {
                for (k, (it, x)) in items.iter().zip(vs).enumerate() {
                    let q = self.field_ptr(mt, p, k as u32)?;
                    self.store_value(g, q, it, x)?;
                }
            }
            _ => {
                return Err(self.type_err(g, format!("{} value stored as {t}", v.kind())));
            }
        }
        Ok(())
    }

    fn store_range(
        &self,
        mt: BasicTypeEnum<'ctx>,
        p: PointerValue<'ctx>,
        r: &RangeParts<'ctx>,
    ) -> VrResult<()> {
        for (k, x) in [r.start, r.stop, r.step].into_iter().enumerate() {
            self.builder
                .build_store(self.field_ptr(mt, p, k as u32)?, x)?;
        }
        Ok(())
    }

    fn load_range(
        &self,
        mt: BasicTypeEnum<'ctx>,
        p: PointerValue<'ctx>,
    ) -> VrResult<RangeParts<'ctx>> {
        let i64t = self.cx.i64_type();
        let mut x = Vec::with_capacity(3);
        for k in 0..3 {
            x.push(
                self.builder
                    .build_load(i64t, self.field_ptr(mt, p, k)?, "")?
                    .into_int_value(),
            );
        }
        Ok(RangeParts {
            start: x[0],
            stop: x[1],
            step: x[2],
        })
    }

    /// Read a value of type `t` from memory at `p`. An array item gets a descriptor of
    /// its own in the frame (calls pass descriptors).
    pub(crate) fn load_value(
        &mut self,
        g: &FnGen<'ctx, 'm>,
        p: PointerValue<'ctx>,
        t: &Type,
    ) -> VrResult<AnyVal<'ctx>> {
        let mt = self.value_mem_type(t, &g.f.name)?;
        Ok(match t {
            Type::Scalar { elem } => {
                let raw = self.builder.build_load(mt, p, "")?;
                AnyVal::Scalar(Val {
                    v: self.mem_to_reg(raw, *elem)?,
                    ty: *elem,
                })
            }
            Type::Array(at) => {
                let data = self
                    .builder
                    .build_load(self.ptr_type(), self.field_ptr(mt, p, 0)?, "")?
                    .into_pointer_value();
                let i64t = self.cx.i64_type();
                let vt = i64t.array_type(at.ndims);
                let (mut dims, mut strides) = (Vec::new(), Vec::new());
                for (f, out) in [(1u32, &mut dims), (2u32, &mut strides)] {
                    let base = self.field_ptr(mt, p, f)?;
                    for k in 0..at.ndims {
                        let q = self.field_ptr(vt.into(), base, k)?;
                        out.push(self.builder.build_load(i64t, q, "")?.into_int_value());
                    }
                }
                let desc = self.desc_buffer(&g.alloca_builder, &self.builder, at.ndims, "item")?;
                let view = ArrayView {
                    ty: *at,
                    desc,
                    data,
                    dims,
                    strides,
                };
                self.store_desc(desc, &view)?;
                AnyVal::Array(view)
            }
            Type::Range => AnyVal::Range(self.load_range(mt, p)?),
            Type::Domain { ndims } => {
                let rt = self.value_mem_type(&Type::Range, &g.f.name)?;
                let mut rs = Vec::new();
                for k in 0..*ndims {
                    let q = self.field_ptr(mt, p, k)?;
                    rs.push(self.load_range(rt, q)?);
                }
                AnyVal::Domain(rs)
            }
            Type::Tuple { items } => {
                let mut vs = Vec::new();
                for (k, it) in items.iter().enumerate() {
                    let q = self.field_ptr(mt, p, k as u32)?;
                    vs.push(self.load_value(g, q, it)?);
                }
                AnyVal::Tuple(vs)
            }
            other => return Err(self.type_err(g, format!("load of a value of type {other}"))),
        })
    }

    /// The slot of a local of compound type: its memory and an "assigned" flag.
    pub(crate) fn compound_local(&self, t: &Type, name: &str, func: &str) -> VrResult<Slot<'ctx>> {
        let mt = match self.value_mem_type(t, func) {
            Ok(mt) => mt,
            // Only an error when used.
            Err(_) => return Ok(Slot::Unsupported),
        };
        let ptr = self.builder.build_alloca(mt, name)?;
        let flag = self
            .builder
            .build_alloca(self.cx.bool_type(), &format!("{name}.assigned"))?;
        Ok(Slot::Value {
            ty: t.clone(),
            ptr,
            assigned: Some(flag),
        })
    }

    /// A parameter of compound type arrives as a pointer to the caller's value: the
    /// callee works on a copy of its own (assigning the parameter must not change the
    /// caller's variable). Allocas here, the copy in [`Self::init_compound_param`].
    pub(crate) fn compound_param(&self, t: &Type, name: &str, func: &str) -> VrResult<Slot<'ctx>> {
        let mt = self.value_mem_type(t, func)?;
        let ptr = self.builder.build_alloca(mt, name)?;
        Ok(Slot::Value {
            ty: t.clone(),
            ptr,
            assigned: None,
        })
    }

    pub(crate) fn init_compound_param(
        &self,
        slot: &Slot<'ctx>,
        arg: BasicValueEnum<'ctx>,
        func: &str,
    ) -> VrResult<()> {
        if let Slot::Value { ty, ptr, .. } = slot {
            let mt = self.value_mem_type(ty, func)?;
            let v = self.builder.build_load(mt, arg.into_pointer_value(), "")?;
            self.builder.build_store(*ptr, v)?;
        }
        Ok(())
    }

    /// Evaluate any expression, by its type: scalars, arrays (as views), ranges,
    /// domains, tuples (items left to right), calls (several results make a tuple).
    pub(crate) fn any_value(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<AnyVal<'ctx>> {
        match e {
            Expr::Var { name } => match g.vars.get(name).cloned() {
                Some(Slot::Value { ty, ptr, assigned }) => {
                    if let Some(flag) = assigned.filter(|_| self.read_needs_check(g.f, name)) {
                        let ok = self
                            .builder
                            .build_load(self.cx.bool_type(), flag, "")?
                            .into_int_value();
                        self.check(g, ok, ErrorCode::Unassigned, Some(name), None)?;
                    }
                    self.load_value(g, ptr, &ty)
                }
                Some(Slot::Array(_) | Slot::ArrayVar { .. }) => {
                    Ok(AnyVal::Array(self.array_view(g, name)?))
                }
                _ => Ok(AnyVal::Scalar(self.expr(g, e)?)),
            },
            Expr::Range {
                start: Some(start),
                stop: Some(stop),
                step,
            } => {
                let a = self.i64_of(g, start)?;
                let b = self.i64_of(g, stop)?;
                let s = match step {
                    Some(s) => self.i64_of(g, s)?,
                    None => self.i64c(1),
                };
                let nz = self
                    .builder
                    .build_int_compare(IntPredicate::NE, s, self.i64c(0), "")?;
                self.check(g, nz, ErrorCode::ZeroStep, None, None)?;
                Ok(AnyVal::Range(RangeParts {
                    start: a,
                    stop: b,
                    step: s,
                }))
            }
            Expr::Domain { ranges } => {
                let mut rs = Vec::with_capacity(ranges.len());
                for r in ranges {
                    match self.any_value(g, r)? {
                        AnyVal::Range(r) => rs.push(r),
                        other => {
                            return Err(
                                self.type_err(g, format!("domain of a {} value", other.kind()))
                            )
                        }
                    }
                }
                Ok(AnyVal::Domain(rs))
            }
            Expr::Tuple { items } => {
                let mut vs = Vec::with_capacity(items.len());
                for i in items {
                    vs.push(self.any_value(g, i)?);
                }
                Ok(AnyVal::Tuple(vs))
            }
            Expr::TupleGet { arg, index } => {
                let items = match self.any_value(g, arg)? {
                    AnyVal::Tuple(items) => items,
                    other => {
                        return Err(self.type_err(g, format!("tget of a {} value", other.kind())))
                    }
                };
                let n = items.len();
                items
                    .into_iter()
                    .nth(*index as usize)
                    .ok_or_else(|| self.type_err(g, format!("tget {index} of {n} items")))
            }
            Expr::Call { func, args } => {
                let mut outs = self.call_any(g, func, args)?;
                if outs.len() == 1 {
                    Ok(outs.remove(0).into())
                } else {
                    Ok(AnyVal::Tuple(outs.into_iter().map(AnyVal::from).collect()))
                }
            }
            _ if matches!(self.static_type(g, e), Some(Type::Array(_))) => {
                Ok(AnyVal::Array(self.array_arg(g, e)?.0))
            }
            _ => Ok(AnyVal::Scalar(self.expr(g, e)?)),
        }
    }

    /// An integer scalar as i64.
    fn i64_of(&mut self, g: &mut FnGen<'ctx, 'm>, e: &Expr) -> VrResult<IntValue<'ctx>> {
        let v = self.expr(g, e)?;
        match v.ty {
            ScalarType::I64 => Ok(v.int()),
            ScalarType::I32 => {
                Ok(self
                    .builder
                    .build_int_s_extend(v.int(), self.cx.i64_type(), "")?)
            }
            t => Err(self.type_err(g, format!("range endpoint of type {t}"))),
        }
    }

    /// `(tget ...)` where a scalar is expected.
    pub(crate) fn tuple_get_scalar(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<Val<'ctx>> {
        match self.any_value(g, e)? {
            AnyVal::Scalar(v) => Ok(v),
            // Where the caller names an array operand it cannot take (indexing an
            // array-valued expression).
            AnyVal::Array(_) => Err(super::unsupported(
                "array-valued `tget` in this position",
                &g.f.name,
            )),
            other => Err(self.type_err(g, format!("{} tuple item used as a scalar", other.kind()))),
        }
    }

    /// `(tget ...)` where an array is expected.
    pub(crate) fn tuple_get_array(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<(ArrayView<'ctx>, String)> {
        match self.any_value(g, e)? {
            AnyVal::Array(a) => Ok((a, "(tget ...)".into())),
            other => Err(self.type_err(g, format!("{} tuple item used as an array", other.kind()))),
        }
    }

    /// The static type of `e` (the verifier's rules), when it has one.
    pub(crate) fn static_type(&self, g: &FnGen<'ctx, 'm>, e: &Expr) -> Option<Type> {
        crate::vrir::verify::expr_type(self.vm, g.f, e).ok()
    }

    /// Is index `e` a range: written as one, or a range-valued variable or item?
    pub(crate) fn is_range_index(&self, g: &FnGen<'ctx, 'm>, e: &Expr) -> bool {
        match e {
            Expr::Range { .. } => true,
            Expr::Var { .. } | Expr::TupleGet { .. } | Expr::Call { .. } => {
                matches!(self.static_type(g, e), Some(Type::Range))
            }
            _ => false,
        }
    }

    /// `(set v e)` for a local or parameter `v` of compound type.
    pub(crate) fn assign_compound(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
        value: &Expr,
    ) -> VrResult<()> {
        let v = self.any_value(g, value)?;
        self.store_any(g, name, v)
    }

    /// Store an evaluated compound value into variable `name`.
    pub(crate) fn store_any(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
        v: AnyVal<'ctx>,
    ) -> VrResult<()> {
        let Some(Slot::Value { ty, ptr, assigned }) = g.vars.get(name).cloned() else {
            return Err(self.type_err(g, format!("{} value assigned to `{name}`", v.kind())));
        };
        self.store_value(g, ptr, &ty, &v)?;
        if let Some(flag) = assigned {
            self.builder
                .build_store(flag, self.cx.bool_type().const_all_ones())?;
        }
        Ok(())
    }

    /// The ranges of a range- or domain-valued expression other than a literal one
    /// (a variable, a call, a tuple item), for a loop.
    pub(crate) fn range_values(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
    ) -> VrResult<Vec<RangeParts<'ctx>>> {
        match self.any_value(g, e)? {
            AnyVal::Range(r) => Ok(vec![r]),
            AnyVal::Domain(rs) => Ok(rs),
            other => Err(self.type_err(g, format!("loop over a {} value", other.kind()))),
        }
    }

    /// A compound argument for parameter type `t`: evaluated, stored in the frame, and
    /// passed by pointer.
    pub(crate) fn compound_arg(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: &Type,
        e: &Expr,
    ) -> VrResult<PointerValue<'ctx>> {
        let v = self.any_value(g, e)?;
        let mt = self.value_mem_type(t, &g.f.name)?;
        let p = g.alloca_builder.build_alloca(mt, "arg")?;
        self.store_value(g, p, t, &v)?;
        Ok(p)
    }
}
