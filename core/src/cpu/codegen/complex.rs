//! Complex numbers (c64, c128) in generated code.
//!
//! Representation: in registers and in memory a complex is the LLVM struct
//! `{ T, T }` (re, im) with T = float / double: the layout of num-complex's
//! `Complex<T>` (`repr(C)`), of C99 `_Complex`, NumPy, R and Octave, so a complex array
//! is interleaved re, im pairs and hosts pass their buffers as they are.
//!
//! Results equal the interpreter's bit for bit: `+ - * /`, negation, `abs` (`hypot`),
//! `==`/`!=` and casts are emitted inline with num-complex's formulas, operation for
//! operation (no fast-math flags, so LLVM neither contracts nor reassociates); the
//! transcendental functions and `pow` call `complex_rt`, which runs num-complex itself.
//! The builders here are the element operations other generators reuse (matmul of
//! complex arrays: [`CodeGen::complex_mul`], [`CodeGen::complex_add`]).

use super::{CodeGen, FnGen, Val};
use crate::cpu::complex_rt;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::{BinOp, LibFn, UnOp};
use crate::vrir::types::ScalarType;
use inkwell::types::{FloatType, StructType};
use inkwell::values::{BasicMetadataValueEnum, FloatValue, ValueKind};
use inkwell::FloatPredicate;

/// Element type of library function `f`'s result for arguments of element type `t` (the
/// first argument's for two-argument functions): the interpreter's rule.
pub(crate) fn lib_result_type(f: LibFn, t: ScalarType) -> ScalarType {
    match f {
        LibFn::IsNan | LibFn::IsInf => ScalarType::Bool,
        LibFn::Real | LibFn::Imag => t.real_part(),
        LibFn::Abs if t.is_complex() => t.real_part(),
        LibFn::Complex if t == ScalarType::F32 => ScalarType::C64,
        LibFn::Complex => ScalarType::C128,
        _ => t,
    }
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// The type of a part of complex type `t` (f32 for c64, f64 for c128).
    pub(crate) fn complex_part_type(&self, t: ScalarType) -> FloatType<'ctx> {
        if t == ScalarType::C64 {
            self.cx.f32_type()
        } else {
            self.cx.f64_type()
        }
    }

    /// `{ T, T }`: register and memory type of complex type `t`.
    pub(crate) fn complex_type(&self, t: ScalarType) -> StructType<'ctx> {
        let p = self.complex_part_type(t);
        self.cx.struct_type(&[p.into(), p.into()], false)
    }

    /// (re, im) of a complex value.
    pub(crate) fn complex_parts(
        &self,
        v: Val<'ctx>,
    ) -> VrResult<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let s = v.v.into_struct_value();
        let re = self.builder.build_extract_value(s, 0, "re")?;
        let im = self.builder.build_extract_value(s, 1, "im")?;
        Ok((re.into_float_value(), im.into_float_value()))
    }

    /// The complex value `re + i im` of type `t`.
    pub(crate) fn complex_make(
        &self,
        t: ScalarType,
        re: FloatValue<'ctx>,
        im: FloatValue<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        let st = self.complex_type(t);
        let s = self
            .builder
            .build_insert_value(st.get_undef(), re, 0, "")?
            .into_struct_value();
        let s = self
            .builder
            .build_insert_value(s, im, 1, "")?
            .into_struct_value();
        Ok(Val { v: s.into(), ty: t })
    }

    /// A complex constant.
    pub(crate) fn complex_const(&self, t: ScalarType, re: f64, im: f64) -> Val<'ctx> {
        let p = self.complex_part_type(t);
        let s = self
            .complex_type(t)
            .const_named_struct(&[p.const_float(re).into(), p.const_float(im).into()]);
        Val { v: s.into(), ty: t }
    }

    /// `a + b`, componentwise.
    pub(crate) fn complex_add(&self, a: Val<'ctx>, b: Val<'ctx>) -> VrResult<Val<'ctx>> {
        let ((ar, ai), (br, bi)) = (self.complex_parts(a)?, self.complex_parts(b)?);
        let re = self.builder.build_float_add(ar, br, "")?;
        let im = self.builder.build_float_add(ai, bi, "")?;
        self.complex_make(a.ty, re, im)
    }

    /// `a - b`, componentwise.
    pub(crate) fn complex_sub(&self, a: Val<'ctx>, b: Val<'ctx>) -> VrResult<Val<'ctx>> {
        let ((ar, ai), (br, bi)) = (self.complex_parts(a)?, self.complex_parts(b)?);
        let re = self.builder.build_float_sub(ar, br, "")?;
        let im = self.builder.build_float_sub(ai, bi, "")?;
        self.complex_make(a.ty, re, im)
    }

    /// `a * b` as num-complex: re = ar*br - ai*bi, im = ar*bi + ai*br.
    pub(crate) fn complex_mul(&self, a: Val<'ctx>, b: Val<'ctx>) -> VrResult<Val<'ctx>> {
        let ((ar, ai), (br, bi)) = (self.complex_parts(a)?, self.complex_parts(b)?);
        let bl = &self.builder;
        let rr = bl.build_float_mul(ar, br, "")?;
        let ii = bl.build_float_mul(ai, bi, "")?;
        let re = bl.build_float_sub(rr, ii, "")?;
        let ri = bl.build_float_mul(ar, bi, "")?;
        let ir = bl.build_float_mul(ai, br, "")?;
        let im = bl.build_float_add(ri, ir, "")?;
        self.complex_make(a.ty, re, im)
    }

    /// `a / b` as num-complex: n = br*br + bi*bi, re = (ar*br + ai*bi) / n,
    /// im = (ai*br - ar*bi) / n.
    pub(crate) fn complex_div(&self, a: Val<'ctx>, b: Val<'ctx>) -> VrResult<Val<'ctx>> {
        let ((ar, ai), (br, bi)) = (self.complex_parts(a)?, self.complex_parts(b)?);
        let bl = &self.builder;
        let n1 = bl.build_float_mul(br, br, "")?;
        let n2 = bl.build_float_mul(bi, bi, "")?;
        let n = bl.build_float_add(n1, n2, "")?;
        let p1 = bl.build_float_mul(ar, br, "")?;
        let p2 = bl.build_float_mul(ai, bi, "")?;
        let re = bl.build_float_add(p1, p2, "")?;
        let q1 = bl.build_float_mul(ai, br, "")?;
        let q2 = bl.build_float_mul(ar, bi, "")?;
        let im = bl.build_float_sub(q1, q2, "")?;
        let re = bl.build_float_div(re, n, "")?;
        let im = bl.build_float_div(im, n, "")?;
        self.complex_make(a.ty, re, im)
    }

    /// `-a`, componentwise.
    pub(crate) fn complex_neg(&self, a: Val<'ctx>) -> VrResult<Val<'ctx>> {
        let (re, im) = self.complex_parts(a)?;
        let re = self.builder.build_float_neg(re, "")?;
        let im = self.builder.build_float_neg(im, "")?;
        self.complex_make(a.ty, re, im)
    }

    /// `|a|` = hypot(re, im), num-complex's `norm`.
    pub(crate) fn complex_abs(&self, a: Val<'ctx>) -> VrResult<Val<'ctx>> {
        let (re, im) = self.complex_parts(a)?;
        let name = if a.ty == ScalarType::C64 {
            "hypotf"
        } else {
            "hypot"
        };
        let r = self.call_float_fn(name, &[re, im])?;
        Ok(Val {
            v: r.into(),
            ty: a.ty.real_part(),
        })
    }

    /// A binary operator on two complex scalars of one type.
    pub(crate) fn complex_binary(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: BinOp,
        a: Val<'ctx>,
        b: Val<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        match op {
            BinOp::Add => self.complex_add(a, b),
            BinOp::Sub => self.complex_sub(a, b),
            BinOp::Mul => self.complex_mul(a, b),
            BinOp::Div => self.complex_div(a, b),
            BinOp::Eq | BinOp::Ne => {
                let ((ar, ai), (br, bi)) = (self.complex_parts(a)?, self.complex_parts(b)?);
                let bl = &self.builder;
                let re = bl.build_float_compare(FloatPredicate::OEQ, ar, br, "")?;
                let im = bl.build_float_compare(FloatPredicate::OEQ, ai, bi, "")?;
                let eq = bl.build_and(re, im, "")?;
                let v = if op == BinOp::Eq {
                    eq
                } else {
                    bl.build_not(eq, "")?
                };
                Ok(Val {
                    v: v.into(),
                    ty: ScalarType::Bool,
                })
            }
            _ => Err(self.type_err(g, format!("`{}` of {}", op.symbol(), a.ty))),
        }
    }

    /// A unary operator on a complex scalar.
    pub(crate) fn complex_unary(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: UnOp,
        a: Val<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        match op {
            UnOp::Neg => self.complex_neg(a),
            _ => Err(self.type_err(g, format!("{op:?} of {}", a.ty))),
        }
    }

    /// A cast from or to a complex type (the other kind is checked by the verifier:
    /// complex converts only to complex). Complex -> complex converts each part; a real
    /// becomes the real part as the interpreter converts it (an integer rounds once,
    /// straight to the part type).
    pub(crate) fn complex_cast(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        a: Val<'ctx>,
        to: ScalarType,
    ) -> VrResult<Val<'ctx>> {
        if !to.is_complex() {
            return Err(self.type_err(g, format!("cast from {} to {to}", a.ty)));
        }
        let pt = self.complex_part_type(to);
        if a.ty.is_complex() {
            let (re, im) = self.complex_parts(a)?;
            let conv = |x: FloatValue<'ctx>| -> VrResult<FloatValue<'ctx>> {
                Ok(if to == ScalarType::C64 {
                    self.builder.build_float_trunc(x, pt, "")?
                } else {
                    self.builder.build_float_ext(x, pt, "")?
                })
            };
            let (re, im) = (conv(re)?, conv(im)?);
            return self.complex_make(to, re, im);
        }
        let re = self.cast(g, a, to.real_part())?.float();
        self.complex_make(to, re, pt.const_zero())
    }

    /// An element-wise library function with a complex argument, or `complex` itself.
    pub(crate) fn complex_lib(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        func: LibFn,
        a: Val<'ctx>,
        b: Option<Val<'ctx>>,
    ) -> VrResult<Val<'ctx>> {
        let t = a.ty;
        let bad =
            |s: &Self, g: &FnGen<'ctx, 'm>| s.type_err(g, format!("`{}` of {t}", func.name()));
        if let Some(b) = b {
            if b.ty != t {
                return Err(bad(self, g));
            }
        }
        match (func, b) {
            (LibFn::Complex, Some(b)) if t.is_float() => {
                let ct = lib_result_type(func, t);
                self.complex_make(ct, a.float(), b.float())
            }
            (LibFn::Pow, Some(b)) if t.is_complex() => self.complex_math(g, func, a, Some(b)),
            (_, Some(_)) => Err(bad(self, g)),
            _ if !t.is_complex() => Err(bad(self, g)),
            (LibFn::Abs, None) => self.complex_abs(a),
            (LibFn::Real | LibFn::Imag, None) => {
                let (re, im) = self.complex_parts(a)?;
                let v = if func == LibFn::Real { re } else { im };
                Ok(Val {
                    v: v.into(),
                    ty: t.real_part(),
                })
            }
            (LibFn::Conj, None) => {
                let (re, im) = self.complex_parts(a)?;
                let im = self.builder.build_float_neg(im, "")?;
                self.complex_make(t, re, im)
            }
            (LibFn::IsNan | LibFn::IsInf, None) => {
                let (re, im) = self.complex_parts(a)?;
                let test = |x: FloatValue<'ctx>| -> VrResult<inkwell::values::IntValue<'ctx>> {
                    if func == LibFn::IsNan {
                        Ok(self
                            .builder
                            .build_float_compare(FloatPredicate::UNO, x, x, "")?)
                    } else {
                        let ax = self.float_intrinsic("llvm.fabs", x)?;
                        let inf = ax.get_type().const_float(f64::INFINITY);
                        Ok(self
                            .builder
                            .build_float_compare(FloatPredicate::OEQ, ax, inf, "")?)
                    }
                };
                let (x, y) = (test(re)?, test(im)?);
                Ok(Val {
                    v: self.builder.build_or(x, y, "")?.into(),
                    ty: ScalarType::Bool,
                })
            }
            (f, None) if complex_rt::code_of(f).is_some() && f != LibFn::Pow => {
                self.complex_math(g, func, a, None)
            }
            _ => Err(bad(self, g)),
        }
    }

    /// Call `complex_rt`'s helper for `func` (a transcendental function or `pow`).
    fn complex_math(
        &self,
        g: &FnGen<'ctx, 'm>,
        func: LibFn,
        a: Val<'ctx>,
        b: Option<Val<'ctx>>,
    ) -> VrResult<Val<'ctx>> {
        let t = a.ty;
        let code = complex_rt::code_of(func).ok_or_else(|| {
            VrError::new(
                ErrorKind::Internal,
                format!("cpu backend: no complex helper for `{}`", func.name()),
            )
        })?;
        let pt = self.complex_part_type(t);
        let name = if t == ScalarType::C64 {
            complex_rt::C64_MATH
        } else {
            complex_rt::C128_MATH
        };
        let ptr = self.ptr_type();
        let i32t = self.cx.i32_type();
        let f = match self.module.get_function(name) {
            Some(f) => f,
            None => {
                let fty = self.cx.void_type().fn_type(
                    &[
                        i32t.into(),
                        pt.into(),
                        pt.into(),
                        pt.into(),
                        pt.into(),
                        ptr.into(),
                    ],
                    false,
                );
                let f =
                    self.module
                        .add_function(name, fty, Some(inkwell::module::Linkage::External));
                f.add_attribute(
                    inkwell::attributes::AttributeLoc::Function,
                    self.enum_attr("nounwind"),
                );
                f
            }
        };
        let (re, im) = self.complex_parts(a)?;
        let (re2, im2) = match b {
            Some(b) => self.complex_parts(b)?,
            None => (pt.const_zero(), pt.const_zero()),
        };
        // The out pair lives in the frame (one per call site).
        let out = g
            .alloca_builder
            .build_alloca(self.complex_type(t), "cplx.out")?;
        self.builder.build_call(
            f,
            &[
                i32t.const_int(code as u64, false).into(),
                re.into(),
                im.into(),
                re2.into(),
                im2.into(),
                out.into(),
            ],
            "",
        )?;
        let v = self.builder.build_load(self.complex_type(t), out, "")?;
        Ok(Val { v, ty: t })
    }

    /// Call a C function `name` of float arguments returning the same float type
    /// (declared on first use; the math library calls of `expr.rs` go through it too).
    pub(crate) fn call_float_fn(&self, name: &str, args: &[FloatValue<'ctx>]) -> VrResult<FloatValue<'ctx>> {
        let ft = args[0].get_type();
        let f = match self.module.get_function(name) {
            Some(f) => f,
            None => {
                let params: Vec<_> = args.iter().map(|_| ft.into()).collect();
                let f = self.module.add_function(
                    name,
                    ft.fn_type(&params, false),
                    Some(inkwell::module::Linkage::External),
                );
                f.add_attribute(
                    inkwell::attributes::AttributeLoc::Function,
                    self.enum_attr("nounwind"),
                );
                f
            }
        };
        let a: Vec<BasicMetadataValueEnum> = args.iter().map(|v| (*v).into()).collect();
        match self.builder.build_call(f, &a, "")?.try_as_basic_value() {
            ValueKind::Basic(v) => Ok(v.into_float_value()),
            _ => Err(VrError::new(
                ErrorKind::Internal,
                format!("{name} returned nothing"),
            )),
        }
    }
}
