//! Scalar expressions: constants, variables, operators, casts, library functions.
//! Semantics per docs/vrir-semantics.md: wrapping integers, checked division, floor
//! `idiv`/`mod`, checked float -> int casts, NaN-propagating min/max, no fast-math.

use super::{unsupported, CodeGen, FnGen, Slot, Val, IPOW_I32, IPOW_I64};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::{VrError, VrResult};
use crate::vrir::ast::{BinOp, Expr, LibFn, Literal, UnOp};
use crate::vrir::types::{ScalarType, Type};
use inkwell::values::{FloatValue, IntValue, ValueKind};
use inkwell::{FloatPredicate, IntPredicate};

/// Name of a construct for "not supported yet" messages.
fn construct_name(e: &Expr) -> String {
    match e {
        Expr::Reduce { op, .. } => format!("reduction `{}`", op.name()),
        Expr::Scan { op, .. } => format!("`{}`", op.name()),
        Expr::Alloc { .. } => "array allocation".into(),
        Expr::Range { .. } => "range value".into(),
        Expr::Domain { .. } => "domain value".into(),
        Expr::Tuple { .. } | Expr::TupleGet { .. } => "tuple value".into(),
        Expr::Map { func, .. } => format!("`map` of {func}"),
        Expr::AtomicAdd { .. } => "`atomic-add`".into(),
        Expr::AtomicCas { .. } => "`atomic-cas`".into(),
        Expr::Lib { func, .. } => format!("`{}`", func.name()),
        _ => "this expression".into(),
    }
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Compile a scalar-valued expression.
    pub(crate) fn expr(&mut self, g: &mut FnGen<'ctx, 'm>, e: &Expr) -> VrResult<Val<'ctx>> {
        match e {
            Expr::Const { value } => self.literal(g, value),
            Expr::Var { name } => self.load_var(g, name),
            Expr::Unary { op, arg } => {
                let a = self.expr(g, arg)?;
                self.unary(g, *op, a)
            }
            Expr::Binary {
                op: BinOp::And,
                lhs,
                rhs,
            } => self.short_circuit(g, true, lhs, rhs),
            Expr::Binary {
                op: BinOp::Or,
                lhs,
                rhs,
            } => self.short_circuit(g, false, lhs, rhs),
            Expr::Binary { op, lhs, rhs } => {
                let a = self.expr(g, lhs)?;
                let b = self.expr(g, rhs)?;
                if a.ty != b.ty {
                    return Err(
                        self.type_err(g, format!("`{}` of {} and {}", op.symbol(), a.ty, b.ty))
                    );
                }
                self.binary(g, *op, a, b)
            }
            Expr::Cast { to, arg } => {
                let Type::Scalar { elem } = to else {
                    return Err(unsupported(&format!("cast to `{to}`"), &g.f.name));
                };
                let a = self.expr(g, arg)?;
                self.cast(g, a, *elem)
            }
            Expr::Call { func, args } => {
                let mut vals = self.call(g, func, args)?;
                if vals.len() != 1 {
                    return Err(unsupported(
                        &format!("use of the {} results of `{func}` as one value", vals.len()),
                        &g.f.name,
                    ));
                }
                Ok(vals.remove(0))
            }
            Expr::Lib { func, args } => self.lib(g, *func, args),
            // Any tuple: a variable, a call's results, a literal tuple, an item (tuple.rs).
            Expr::TupleGet { .. } => self.tuple_get_scalar(g, e),
            Expr::Dim { arg, axis } => {
                let (view, name) = self.array_arg(g, arg)?;
                match view.dims.get(*axis as usize) {
                    Some(d) => Ok(Val {
                        v: (*d).into(),
                        ty: ScalarType::I64,
                    }),
                    None => Err(self.type_err(g, format!("dim {axis} of `{name}`"))),
                }
            }
            Expr::Index {
                array,
                indices,
                flags,
            } => self.index_read(g, array, indices, *flags),
            Expr::Reduce {
                op,
                arg,
                axis: None,
                acc,
            } => self.reduce_all(g, *op, arg, *acc),
            Expr::Reduce {
                op,
                arg,
                axis: Some(k),
                acc,
            } => match self.reduce_axis(g, *op, arg, *k, *acc)? {
                super::elementwise::Operand::Scalar(v) => Ok(v),
                super::elementwise::Operand::Array(_) => {
                    Err(self.type_err(g, "array-valued reduction used as a scalar".into()))
                }
            },
            Expr::AtomicAdd {
                array,
                indices,
                value,
            } => self.atomic_add(g, array, indices, value),
            Expr::AtomicCas {
                array,
                indices,
                expected,
                new,
            } => self.atomic_cas(g, array, indices, expected, new),
            other => Err(unsupported(&construct_name(other), &g.f.name)),
        }
    }

    pub(crate) fn type_err(&self, g: &FnGen<'ctx, 'm>, what: String) -> VrError {
        VrError::type_error(format!("cpu backend: ill-typed {what}"))
            .with_function(&g.f.name)
            .with_line(g.line)
    }

    pub(crate) fn literal(&mut self, _g: &FnGen<'ctx, 'm>, l: &Literal) -> VrResult<Val<'ctx>> {
        let cx = self.cx;
        Ok(match *l {
            Literal::Bool(b) => Val {
                v: cx.bool_type().const_int(b as u64, false).into(),
                ty: ScalarType::Bool,
            },
            Literal::I32(v) => Val {
                v: cx.i32_type().const_int(v as i64 as u64, true).into(),
                ty: ScalarType::I32,
            },
            Literal::I64(v) => Val {
                v: self.i64c(v).into(),
                ty: ScalarType::I64,
            },
            Literal::F32(v) => Val {
                v: cx.f32_type().const_float(v as f64).into(),
                ty: ScalarType::F32,
            },
            Literal::F64(v) => Val {
                v: cx.f64_type().const_float(v).into(),
                ty: ScalarType::F64,
            },
            Literal::C64([re, im]) => self.complex_const(ScalarType::C64, re as f64, im as f64),
            Literal::C128([re, im]) => self.complex_const(ScalarType::C128, re, im),
        })
    }

    fn load_var(&mut self, g: &mut FnGen<'ctx, 'm>, name: &str) -> VrResult<Val<'ctx>> {
        match g.vars.get(name).cloned() {
            Some(Slot::Scalar { ty, ptr, assigned }) => {
                if let Some(flag) = assigned.filter(|_| self.read_needs_check(g.f, name)) {
                    let ok = self
                        .builder
                        .build_load(self.cx.bool_type(), flag, "")?
                        .into_int_value();
                    self.check(g, ok, ErrorCode::Unassigned, Some(name), None)?;
                }
                let raw = self
                    .builder
                    .build_load(self.mem_type(ty, &g.f.name)?, ptr, name)?;
                Ok(Val {
                    v: self.mem_to_reg(raw, ty)?,
                    ty,
                })
            }
            Some(_) => Err(unsupported(
                &format!("array-valued use of `{name}`"),
                &g.f.name,
            )),
            None => Err(self.type_err(g, format!("use of unknown variable `{name}`"))),
        }
    }

    /// `and` / `or` on bool scalars, evaluating `rhs` only when needed.
    fn short_circuit(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        is_and: bool,
        lhs: &Expr,
        rhs: &Expr,
    ) -> VrResult<Val<'ctx>> {
        let a = self.expr(g, lhs)?;
        if a.ty != ScalarType::Bool {
            return Err(self.type_err(g, format!("logical operand of type {}", a.ty)));
        }
        let a_bb = self.builder.get_insert_block().expect("positioned");
        let rhs_bb = self.cx.append_basic_block(g.llfn, "logic.rhs");
        let join = self.cx.append_basic_block(g.llfn, "logic.join");
        if is_and {
            self.builder
                .build_conditional_branch(a.int(), rhs_bb, join)?;
        } else {
            self.builder
                .build_conditional_branch(a.int(), join, rhs_bb)?;
        }
        self.builder.position_at_end(rhs_bb);
        let b = self.expr(g, rhs)?;
        if b.ty != ScalarType::Bool {
            return Err(self.type_err(g, format!("logical operand of type {}", b.ty)));
        }
        let b_end = self.builder.get_insert_block().expect("positioned");
        self.builder.build_unconditional_branch(join)?;
        self.builder.position_at_end(join);
        let phi = self.builder.build_phi(self.cx.bool_type(), "")?;
        let short = self.cx.bool_type().const_int(!is_and as u64, false);
        phi.add_incoming(&[(&short, a_bb), (&b.int(), b_end)]);
        Ok(Val {
            v: phi.as_basic_value(),
            ty: ScalarType::Bool,
        })
    }

    /// A unary operator on one scalar.
    pub(crate) fn unary(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: UnOp,
        a: Val<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        if a.ty.is_complex() {
            return self.complex_unary(g, op, a);
        }
        match (op, a.ty) {
            (UnOp::Not, ScalarType::Bool) => Ok(Val {
                v: self.builder.build_not(a.int(), "")?.into(),
                ty: a.ty,
            }),
            (UnOp::Neg, t) if t.is_int() => Ok(Val {
                v: self.builder.build_int_neg(a.int(), "")?.into(),
                ty: t,
            }),
            (UnOp::Neg, t) if t.is_float() => Ok(Val {
                v: self.builder.build_float_neg(a.float(), "")?.into(),
                ty: t,
            }),
            _ => Err(self.type_err(g, format!("{op:?} of {}", a.ty))),
        }
    }

    pub(crate) fn binary(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: BinOp,
        a: Val<'ctx>,
        b: Val<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        let t = a.ty;
        if t.is_complex() {
            return self.complex_binary(g, op, a, b);
        }
        let bld = &self.builder;
        if op.is_comparison() {
            let v = if t.is_float() {
                let p = match op {
                    BinOp::Lt => FloatPredicate::OLT,
                    BinOp::Le => FloatPredicate::OLE,
                    BinOp::Gt => FloatPredicate::OGT,
                    BinOp::Ge => FloatPredicate::OGE,
                    BinOp::Eq => FloatPredicate::OEQ,
                    _ => FloatPredicate::UNE,
                };
                bld.build_float_compare(p, a.float(), b.float(), "")?
            } else if t.is_int() || (t == ScalarType::Bool && matches!(op, BinOp::Eq | BinOp::Ne)) {
                let p = match op {
                    BinOp::Lt => IntPredicate::SLT,
                    BinOp::Le => IntPredicate::SLE,
                    BinOp::Gt => IntPredicate::SGT,
                    BinOp::Ge => IntPredicate::SGE,
                    BinOp::Eq => IntPredicate::EQ,
                    _ => IntPredicate::NE,
                };
                bld.build_int_compare(p, a.int(), b.int(), "")?
            } else {
                return Err(self.type_err(g, format!("comparison `{}` of {t}", op.symbol())));
            };
            return Ok(Val {
                v: v.into(),
                ty: ScalarType::Bool,
            });
        }
        if t.is_float() {
            let (x, y) = (a.float(), b.float());
            let v: FloatValue = match op {
                BinOp::Add => bld.build_float_add(x, y, "")?,
                BinOp::Sub => bld.build_float_sub(x, y, "")?,
                BinOp::Mul => bld.build_float_mul(x, y, "")?,
                BinOp::Div => bld.build_float_div(x, y, "")?,
                BinOp::IDiv => {
                    let q = bld.build_float_div(x, y, "")?;
                    self.float_intrinsic("llvm.floor", q)?
                }
                BinOp::Mod => {
                    // R's %%: a - floor(a / b) * b
                    let q = bld.build_float_div(x, y, "")?;
                    let fq = self.float_intrinsic("llvm.floor", q)?;
                    let p = self.builder.build_float_mul(fq, y, "")?;
                    self.builder.build_float_sub(x, p, "")?
                }
                _ => return Err(self.type_err(g, format!("`{}` of {t}", op.symbol()))),
            };
            return Ok(Val { v: v.into(), ty: t });
        }
        if !t.is_int() {
            return Err(self.type_err(g, format!("`{}` of {t}", op.symbol())));
        }
        let (x, y) = (a.int(), b.int());
        let v: IntValue = match op {
            BinOp::Add => bld.build_int_add(x, y, "")?,
            BinOp::Sub => bld.build_int_sub(x, y, "")?,
            BinOp::Mul => bld.build_int_mul(x, y, "")?,
            BinOp::Div => self.int_div_rem(g, x, y, true)?,
            BinOp::IDiv => {
                // floor: truncated quotient minus one when the remainder is non-zero and
                // its sign differs from the divisor's.
                let q = self.int_div_rem(g, x, y, true)?;
                let r = self.int_div_rem(g, x, y, false)?;
                let adjust = self.floor_adjust(r, y)?;
                let one = x.get_type().const_int(1, false);
                let qm1 = self.builder.build_int_sub(q, one, "")?;
                self.builder
                    .build_select(adjust, qm1, q, "")?
                    .into_int_value()
            }
            BinOp::Mod => {
                let r = self.int_div_rem(g, x, y, false)?;
                let adjust = self.floor_adjust(r, y)?;
                let rb = self.builder.build_int_add(r, y, "")?;
                self.builder
                    .build_select(adjust, rb, r, "")?
                    .into_int_value()
            }
            _ => return Err(self.type_err(g, format!("`{}` of {t}", op.symbol()))),
        };
        Ok(Val { v: v.into(), ty: t })
    }

    /// r != 0 && sign(r) != sign(y)
    fn floor_adjust(&self, r: IntValue<'ctx>, y: IntValue<'ctx>) -> VrResult<IntValue<'ctx>> {
        let zero = r.get_type().const_zero();
        let nz = self
            .builder
            .build_int_compare(IntPredicate::NE, r, zero, "")?;
        let x = self.builder.build_xor(r, y, "")?;
        let neg = self
            .builder
            .build_int_compare(IntPredicate::SLT, x, zero, "")?;
        Ok(self.builder.build_and(nz, neg, "")?)
    }

    /// Truncating division or remainder with the zero check and the MIN / -1 guard
    /// (LLVM's sdiv/srem are undefined there; VRIR wraps to MIN and gives remainder 0).
    pub(crate) fn int_div_rem(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        x: IntValue<'ctx>,
        y: IntValue<'ctx>,
        div: bool,
    ) -> VrResult<IntValue<'ctx>> {
        let ty = x.get_type();
        let nz = self
            .builder
            .build_int_compare(IntPredicate::NE, y, ty.const_zero(), "")?;
        self.check(g, nz, ErrorCode::DivisionByZero, None, None)?;
        let minus1 = ty.const_all_ones();
        let is_m1 = self
            .builder
            .build_int_compare(IntPredicate::EQ, y, minus1, "")?;
        let safe_y = self
            .builder
            .build_select(is_m1, ty.const_int(1, false), y, "")?
            .into_int_value();
        if div {
            let q = self.builder.build_int_signed_div(x, safe_y, "")?;
            let nx = self.builder.build_int_neg(x, "")?;
            Ok(self
                .builder
                .build_select(is_m1, nx, q, "")?
                .into_int_value())
        } else {
            let r = self.builder.build_int_signed_rem(x, safe_y, "")?;
            Ok(self
                .builder
                .build_select(is_m1, ty.const_zero(), r, "")?
                .into_int_value())
        }
    }

    /// Call an overloaded float intrinsic (`llvm.floor` etc.) on one argument.
    pub(crate) fn float_intrinsic(
        &self,
        name: &str,
        x: FloatValue<'ctx>,
    ) -> VrResult<FloatValue<'ctx>> {
        let f = inkwell::intrinsics::Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, &[x.get_type().into()]))
            .ok_or_else(|| {
                VrError::new(crate::ErrorKind::Internal, format!("no intrinsic {name}"))
            })?;
        let r = self.builder.build_call(f, &[x.into()], "")?;
        match r.try_as_basic_value() {
            ValueKind::Basic(v) => Ok(v.into_float_value()),
            _ => Err(VrError::new(
                crate::ErrorKind::Internal,
                format!("intrinsic {name} returned nothing"),
            )),
        }
    }

    /// Call a C math library function (`sin` / `sinf`): the same symbols Rust's f64 / f32
    /// methods end up in, so results equal the interpreter's.
    fn libm(&self, base: &str, args: &[FloatValue<'ctx>]) -> VrResult<FloatValue<'ctx>> {
        let ft = args[0].get_type();
        let is_f32 = ft == self.cx.f32_type();
        let name = if is_f32 {
            format!("{base}f")
        } else {
            base.to_string()
        };
        self.call_float_fn(&name, args)
    }

    fn lib(&mut self, g: &mut FnGen<'ctx, 'm>, func: LibFn, args: &[Expr]) -> VrResult<Val<'ctx>> {
        use LibFn::*;
        match func {
            Len | Ndims => {
                let arg = args.first().ok_or_else(|| {
                    self.type_err(g, format!("`{}` without argument", func.name()))
                })?;
                let dims = self.array_arg(g, arg)?.0.dims;
                let v = if func == Ndims {
                    self.i64c(dims.len() as i64)
                } else {
                    let mut n = self.i64c(1);
                    for d in &dims {
                        n = self.builder.build_int_mul(n, *d, "")?;
                    }
                    n
                };
                return Ok(Val {
                    v: v.into(),
                    ty: ScalarType::I64,
                });
            }
            Matmul => return self.matmul_scalar(g, args),
            Transpose => {
                return Err(unsupported(
                    "indexing of an array-valued `transpose`",
                    &g.f.name,
                ))
            }
            Copy => return Err(unsupported(&format!("`{}`", func.name()), &g.f.name)),
            RandomUnif | RandomNorm | RandomExp | RandomIndex => {
                return self.random_draw(g, func, args)
            }
            _ => {}
        }
        if args.len() != func.arity() {
            return Err(self.type_err(
                g,
                format!("`{}` with {} arguments", func.name(), args.len()),
            ));
        }
        let a = self.expr(g, &args[0])?;
        if func.arity() == 2 {
            let b = self.expr(g, &args[1])?;
            return self.lib_apply(g, func, a, Some(b));
        }
        self.lib_apply(g, func, a, None)
    }

    /// An element-wise library function of arity 1 or 2 applied to evaluated scalars.
    pub(crate) fn lib_apply(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: LibFn,
        a: Val<'ctx>,
        b: Option<Val<'ctx>>,
    ) -> VrResult<Val<'ctx>> {
        use LibFn::*;
        let t = a.ty;
        if t.is_complex() || func == Complex {
            return self.complex_lib(g, func, a, b);
        }
        let bad =
            |s: &Self, g: &FnGen<'ctx, 'm>| s.type_err(g, format!("`{}` of {t}", func.name()));
        if let Some(b) = b {
            if b.ty != t {
                return Err(bad(self, g));
            }
            return self.lib2(g, func, a, b);
        }
        let v: Val = match func {
            Sqrt | Exp | Log | Log10 | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh
            | Tanh | Expm1 => {
                if !t.is_float() {
                    return Err(bad(self, g));
                }
                let x = a.float();
                let r = match func {
                    Sqrt => self.float_intrinsic("llvm.sqrt", x)?,
                    _ => self.libm(func.name(), &[x])?,
                };
                Val { v: r.into(), ty: t }
            }
            Abs if t.is_float() => Val {
                v: self.float_intrinsic("llvm.fabs", a.float())?.into(),
                ty: t,
            },
            Abs if t.is_int() => {
                let x = a.int();
                let neg = self.builder.build_int_compare(
                    IntPredicate::SLT,
                    x,
                    x.get_type().const_zero(),
                    "",
                )?;
                let nx = self.builder.build_int_neg(x, "")?;
                Val {
                    v: self.builder.build_select(neg, nx, x, "")?,
                    ty: t,
                }
            }
            Floor | Ceil | Trunc | Round if t.is_int() => a,
            Floor | Ceil | Trunc | Round if t.is_float() => {
                let name = match func {
                    Floor => "llvm.floor",
                    Ceil => "llvm.ceil",
                    Trunc => "llvm.trunc",
                    _ => "llvm.roundeven",
                };
                Val {
                    v: self.float_intrinsic(name, a.float())?.into(),
                    ty: t,
                }
            }
            IsNan | IsInf if t.is_int() => Val {
                v: self.cx.bool_type().const_zero().into(),
                ty: ScalarType::Bool,
            },
            IsNan if t.is_float() => {
                let x = a.float();
                Val {
                    v: self
                        .builder
                        .build_float_compare(FloatPredicate::UNO, x, x, "")?
                        .into(),
                    ty: ScalarType::Bool,
                }
            }
            IsInf if t.is_float() => {
                let x = self.float_intrinsic("llvm.fabs", a.float())?;
                let inf = x.get_type().const_float(f64::INFINITY);
                Val {
                    v: self
                        .builder
                        .build_float_compare(FloatPredicate::OEQ, x, inf, "")?
                        .into(),
                    ty: ScalarType::Bool,
                }
            }
            Real | Conj if t.is_real() => a,
            Imag if t.is_int() => Val {
                v: self.int_type(t).const_zero().into(),
                ty: t,
            },
            Imag if t.is_float() => Val {
                v: a.float().get_type().const_zero().into(),
                ty: t,
            },
            _ => return Err(bad(self, g)),
        };
        Ok(v)
    }

    fn lib2(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: LibFn,
        a: Val<'ctx>,
        b: Val<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        use LibFn::*;
        let t = a.ty;
        let bad =
            |s: &Self, g: &FnGen<'ctx, 'm>| s.type_err(g, format!("`{}` of {t}", func.name()));
        let v = match func {
            Atan2 if t.is_float() => self.libm("atan2", &[a.float(), b.float()])?.into(),
            Pow if t.is_float() => self.libm("pow", &[a.float(), b.float()])?.into(),
            Pow if t.is_int() => {
                let zero = b.int().get_type().const_zero();
                let ok = self
                    .builder
                    .build_int_compare(IntPredicate::SGE, b.int(), zero, "")?;
                let e64 = if t == ScalarType::I32 {
                    self.builder
                        .build_int_s_extend(b.int(), self.cx.i64_type(), "")?
                } else {
                    b.int()
                };
                self.check(
                    g,
                    ok,
                    ErrorCode::NegativeExponent,
                    None,
                    Some((e64, self.i64c(0), self.i64c(-1))),
                )?;
                let name = if t == ScalarType::I32 {
                    IPOW_I32
                } else {
                    IPOW_I64
                };
                let f = self.module.get_function(name).expect("declared");
                match self
                    .builder
                    .build_call(f, &[a.v.into(), b.v.into()], "")?
                    .try_as_basic_value()
                {
                    ValueKind::Basic(v) => v,
                    _ => return Err(bad(self, g)),
                }
            }
            Min | Max if t.is_float() => {
                // NaN propagates: if either is NaN the result is NaN (x + y is then NaN).
                // A tie keeps x, so the sign of a zero tie is the first operand's (R's rule).
                let (x, y) = (a.float(), b.float());
                let uno = self
                    .builder
                    .build_float_compare(FloatPredicate::UNO, x, y, "")?;
                let nan = self.builder.build_float_add(x, y, "")?;
                let p = if func == Min {
                    FloatPredicate::OLT
                } else {
                    FloatPredicate::OGT
                };
                let pick_y = self.builder.build_float_compare(p, y, x, "")?;
                let m = self.builder.build_select(pick_y, y, x, "")?;
                self.builder.build_select(uno, nan.into(), m, "")?
            }
            Min | Max if t.is_int() => {
                let p = if func == Min {
                    IntPredicate::SLT
                } else {
                    IntPredicate::SGT
                };
                let pick_x = self.builder.build_int_compare(p, a.int(), b.int(), "")?;
                self.builder.build_select(pick_x, a.int(), b.int(), "")?
            }
            Rem if t.is_int() => self.int_div_rem(g, a.int(), b.int(), false)?.into(),
            Rem if t.is_float() => self.libm("fmod", &[a.float(), b.float()])?.into(),
            _ => return Err(bad(self, g)),
        };
        Ok(Val { v, ty: t })
    }

    /// Scalar conversion per the semantics (float -> int checked, anything -> bool `!= 0`).
    pub(crate) fn cast(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        a: Val<'ctx>,
        to: ScalarType,
    ) -> VrResult<Val<'ctx>> {
        use ScalarType::*;
        let from = a.ty;
        if from == to {
            return Ok(a);
        }
        if from.is_complex() || to.is_complex() {
            return self.complex_cast(g, a, to);
        }
        let b = &self.builder;
        let v = match (from, to) {
            (_, Bool) if from.is_int() => b
                .build_int_compare(
                    IntPredicate::NE,
                    a.int(),
                    a.int().get_type().const_zero(),
                    "",
                )?
                .into(),
            (_, Bool) => b
                .build_float_compare(
                    FloatPredicate::UNE,
                    a.float(),
                    a.float().get_type().const_zero(),
                    "",
                )?
                .into(),
            (Bool, _) if to.is_int() => {
                b.build_int_z_extend(a.int(), self.int_type(to), "")?.into()
            }
            (Bool, F32) => b
                .build_unsigned_int_to_float(a.int(), self.cx.f32_type(), "")?
                .into(),
            (Bool, _) => b
                .build_unsigned_int_to_float(a.int(), self.cx.f64_type(), "")?
                .into(),
            (I32, I64) => b
                .build_int_s_extend(a.int(), self.cx.i64_type(), "")?
                .into(),
            (I64, I32) => b
                .build_int_truncate(a.int(), self.cx.i32_type(), "")?
                .into(),
            (_, F32) if from.is_int() => b
                .build_signed_int_to_float(a.int(), self.cx.f32_type(), "")?
                .into(),
            (_, F64) if from.is_int() => b
                .build_signed_int_to_float(a.int(), self.cx.f64_type(), "")?
                .into(),
            (F32, F64) => b.build_float_ext(a.float(), self.cx.f64_type(), "")?.into(),
            (F64, F32) => b
                .build_float_trunc(a.float(), self.cx.f32_type(), "")?
                .into(),
            (_, I32 | I64) => {
                // Valid iff trunc(x) fits: x in (MIN - 1, MAX + 1) exactly, NaN fails both
                // ordered comparisons. Compared in f64, where both bounds are exact.
                let x = if from == F32 {
                    b.build_float_ext(a.float(), self.cx.f64_type(), "")?
                } else {
                    a.float()
                };
                let (lo, hi) = if to == I32 {
                    (-2147483649.0, 2147483648.0)
                } else {
                    (-9223372036854777856.0, 9223372036854775808.0)
                };
                let f64t = self.cx.f64_type();
                let ge_lo =
                    b.build_float_compare(FloatPredicate::OGT, x, f64t.const_float(lo), "")?;
                let lt_hi =
                    b.build_float_compare(FloatPredicate::OLT, x, f64t.const_float(hi), "")?;
                let ok = self.builder.build_and(ge_lo, lt_hi, "")?;
                // The message shows the value: pass its f64 bits and both types.
                let bits = self
                    .builder
                    .build_bit_cast(x, self.cx.i64_type(), "")?
                    .into_int_value();
                let code = |t: ScalarType| {
                    self.i64c(ScalarType::ALL.iter().position(|u| *u == t).unwrap_or(0) as i64)
                };
                let extra = Some((bits, code(from), code(to)));
                self.check(g, ok, ErrorCode::InvalidCast, None, extra)?;
                self.builder
                    .build_float_to_signed_int(x, self.int_type(to), "")?
                    .into()
            }
            _ => return Err(self.type_err(g, format!("cast from {from} to {to}"))),
        };
        Ok(Val { v, ty: to })
    }
}
