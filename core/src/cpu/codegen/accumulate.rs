//! Reductions with an accumulator type (`:acc f80`), the means (`mean`,
//! `mean-refined`) and scans (`cumsum`, `cumprod`), bit-identical to the interpreter
//! (`interp/extended.rs`), which implements docs/vrir-semantics.md ("Accumulators").
//!
//! `f80` is LLVM's `x86_fp80`: on x86-64 its arithmetic is the x87 unit's, at the
//! extended precision Linux leaves the control word in, exactly what a C compiler emits
//! for `long double` (and so what R's `sum` runs). Other targets have no such type in
//! hardware: there an `f80` accumulator is `unsupported` at compile time (the
//! interpreter still runs it, in software), never computed in another precision.
//!
//! These loops are serial on every backend, `cpu-par` included: a split would change
//! the grouping, and so the bits. They do not vectorise (x87 has no vector form); the
//! cost is measured by `vr-bench-accum` (bench/RESULTS.md).

use super::elementwise::{fresh_layout, Operand};
use super::fused_accumulate::Elements;
use super::{unsupported, ArrayView, CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Accum, BinOp, Expr, ReduceOp, ScanOp};
use crate::vrir::types::{ArrayType, Layout, ScalarType};
use inkwell::types::FloatType;
use inkwell::values::{FloatValue, IntValue};
use inkwell::FloatPredicate;

/// The accumulator of one reduction: its LLVM type and the element's part type (the
/// element type itself for reals, f32/f64 for c64/c128).
#[derive(Clone, Copy)]
struct AccTy<'ctx> {
    acc: FloatType<'ctx>,
    elem: FloatType<'ctx>,
    /// `acc` is wider than `elem` (`f80`), so elements are extended and results rounded.
    wide: bool,
}

/// A step of an accumulation: the accumulators (one per part: re and im for complex
/// elements) and the element's parts, extended to the accumulator type; gives the next
/// accumulators.
type Step<'a, 'ctx, 'm> = dyn FnMut(
        &mut CodeGen<'ctx, 'm>,
        &[FloatValue<'ctx>],
        &[FloatValue<'ctx>],
    ) -> VrResult<Vec<FloatValue<'ctx>>>
    + 'a;

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Does `(op ... :acc acc)` need this file rather than the element-type fold?
    pub(crate) fn is_accumulated(op: ReduceOp, acc: Option<Accum>) -> bool {
        acc.is_some() || op.is_mean()
    }

    fn acc_ty(
        &self,
        g: &FnGen<'ctx, 'm>,
        elem: ScalarType,
        acc: Option<Accum>,
    ) -> VrResult<AccTy<'ctx>> {
        let et = match elem {
            ScalarType::F32 | ScalarType::C64 => self.cx.f32_type(),
            ScalarType::F64 | ScalarType::C128 => self.cx.f64_type(),
            other => {
                return Err(self.type_err(g, format!("accumulation of {other} in a float type")))
            }
        };
        match acc {
            None => Ok(AccTy {
                acc: et,
                elem: et,
                wide: false,
            }),
            Some(Accum::F80) if cfg!(target_arch = "x86_64") => Ok(AccTy {
                acc: self.cx.x86_f80_type(),
                elem: et,
                wide: true,
            }),
            Some(Accum::F80) => Err(unsupported(
                "accumulator type f80 (the x87 80-bit format, absent on this target)",
                &g.f.name,
            )),
        }
    }

    fn extend(&self, t: AccTy<'ctx>, x: FloatValue<'ctx>) -> VrResult<FloatValue<'ctx>> {
        Ok(if t.wide {
            self.builder.build_float_ext(x, t.acc, "")?
        } else {
            x
        })
    }

    /// Rounded to the element's part type (to nearest).
    fn round(&self, t: AccTy<'ctx>, s: FloatValue<'ctx>) -> VrResult<FloatValue<'ctx>> {
        Ok(if t.wide {
            self.builder.build_float_trunc(s, t.elem, "")?
        } else {
            s
        })
    }

    /// R's whole-array `sum`/`prod` rounding (summary.c): a value beyond the largest
    /// finite element is an infinity.
    fn round_saturating(&self, t: AccTy<'ctx>, s: FloatValue<'ctx>) -> VrResult<FloatValue<'ctx>> {
        let r = self.round(t, s)?;
        if !t.wide {
            return Ok(r);
        }
        let b = &self.builder;
        let max = t.acc.const_float(f64::MAX);
        let min = t.acc.const_float(-f64::MAX);
        let above = b.build_float_compare(FloatPredicate::OGT, s, max, "")?;
        let below = b.build_float_compare(FloatPredicate::OLT, s, min, "")?;
        let r = b.build_select(below, t.elem.const_float(f64::NEG_INFINITY), r, "")?;
        let r = b.build_select(above, t.elem.const_float(f64::INFINITY), r.into_float_value(), "")?;
        Ok(r.into_float_value())
    }

    /// Is `s`, rounded to the element's part type, finite? (`x - x` is 0 exactly then,
    /// NaN for infinities and NaN; no fast-math flags, so LLVM keeps the subtraction.)
    fn finite(&self, t: AccTy<'ctx>, s: FloatValue<'ctx>) -> VrResult<IntValue<'ctx>> {
        let r = self.round(t, s)?;
        let d = self.builder.build_float_sub(r, r, "")?;
        Ok(self
            .builder
            .build_float_compare(FloatPredicate::OEQ, d, t.elem.const_zero(), "finite")?)
    }

    /// The parts of an element: itself, or (re, im).
    fn parts(&self, x: Val<'ctx>) -> VrResult<Vec<FloatValue<'ctx>>> {
        if x.ty.is_complex() {
            let (re, im) = self.complex_parts(x)?;
            Ok(vec![re, im])
        } else {
            Ok(vec![x.float()])
        }
    }

    /// The element value of rounded parts.
    fn value_of_parts(&self, elem: ScalarType, p: &[FloatValue<'ctx>]) -> VrResult<Val<'ctx>> {
        if elem.is_complex() {
            self.complex_make(elem, p[0], p[1])
        } else {
            Ok(Val {
                v: p[0].into(),
                ty: elem,
            })
        }
    }

    /// Fold every element of `a` (storage order of its type, as `reduce_view`) into
    /// accumulators starting at `init` (one per part).
    fn accumulate(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: AccTy<'ctx>,
        a: &Elements<'_, 'ctx>,
        init: &[FloatValue<'ctx>],
        step: &mut Step<'_, 'ctx, 'm>,
    ) -> VrResult<Vec<FloatValue<'ctx>>> {
        let mut slots = Vec::with_capacity(init.len());
        for v in init {
            let slot = g.alloca_builder.build_alloca(t.acc, "acc")?;
            self.builder.build_store(slot, *v)?;
            slots.push(slot);
        }
        let col = a.ty().layout == Layout::Col;
        let order: Vec<IntValue<'ctx>> = if col {
            a.dims().iter().rev().copied().collect()
        } else {
            a.dims().to_vec()
        };
        let loaded = |cg: &Self| -> VrResult<Vec<FloatValue<'ctx>>> {
            slots
                .iter()
                .map(|p| Ok(cg.builder.build_load(t.acc, *p, "")?.into_float_value()))
                .collect()
        };
        self.nd_loop(g, &order, &mut |cg, g, loop_idx| {
            let idx: Vec<IntValue<'ctx>> = if col {
                loop_idx.iter().rev().copied().collect()
            } else {
                loop_idx.to_vec()
            };
            let x = match a {
                Elements::Array(v) => cg.load_operand(g, &Operand::Array((*v).clone()), &idx)?,
                Elements::Tree { tree, .. } => cg.tree_element(g, tree, &idx)?,
            };
            let xs = cg
                .parts(x)?
                .into_iter()
                .map(|p| cg.extend(t, p))
                .collect::<VrResult<Vec<_>>>()?;
            let s = loaded(cg)?;
            let next = step(cg, &s, &xs)?;
            for (p, v) in slots.iter().zip(next) {
                cg.builder.build_store(*p, v)?;
            }
            Ok(())
        })?;
        loaded(self)
    }

    /// The sums of the parts, from 0.
    fn sums(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: AccTy<'ctx>,
        a: &Elements<'_, 'ctx>,
    ) -> VrResult<Vec<FloatValue<'ctx>>> {
        let zeros = vec![t.acc.const_zero(); lanes(a.ty().elem)];
        self.accumulate(g, t, a, &zeros, &mut |cg, s, x| {
            s.iter()
                .zip(x)
                .map(|(s, x)| Ok(cg.builder.build_float_add(*s, *x, "")?))
                .collect()
        })
    }

    /// `sum`/`prod` with an accumulator type, or a mean, of the elements of `a`;
    /// `whole`: a whole-array reduction (R's summary.c rounding for real `sum`/`prod`).
    pub(crate) fn reduce_accumulated(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: ReduceOp,
        acc: Option<Accum>,
        a: &Elements<'_, 'ctx>,
        whole: bool,
    ) -> VrResult<Val<'ctx>> {
        let elem = a.ty().elem;
        let t = self.acc_ty(g, elem, acc)?;
        // R rounds a whole real sum or product past DBL_MAX to Inf (summary.c); its
        // complex ones (csum, cprod), its margins and its scans round to nearest.
        let saturate = whole && !elem.is_complex();
        let rounded: Vec<FloatValue<'ctx>> = match op {
            ReduceOp::Sum => {
                let s = self.sums(g, t, a)?;
                s.into_iter()
                    .map(|v| if saturate { self.round_saturating(t, v) } else { self.round(t, v) })
                    .collect::<VrResult<_>>()?
            }
            ReduceOp::Prod => {
                let s = self.products(g, t, a)?;
                s.into_iter()
                    .map(|v| if saturate { self.round_saturating(t, v) } else { self.round(t, v) })
                    .collect::<VrResult<_>>()?
            }
            ReduceOp::Mean => {
                let s = self.sums(g, t, a)?;
                let n = self.count(t, a)?;
                s.into_iter()
                    .map(|v| {
                        let m = self.builder.build_float_div(v, n, "")?;
                        self.round(t, m)
                    })
                    .collect::<VrResult<_>>()?
            }
            ReduceOp::MeanRefined if elem.is_complex() => self.mean_refined_complex(g, t, a)?,
            ReduceOp::MeanRefined => vec![self.mean_refined(g, t, a)?],
            ReduceOp::Min | ReduceOp::Max => {
                return Err(self.type_err(g, format!("`{}` with an accumulator", op.name())))
            }
        };
        self.value_of_parts(elem, &rounded)
    }

    /// The product: of reals, step by step; of complex numbers, R's cprod (and
    /// num-complex's formula): `(r x.re - i x.im, r x.im + i x.re)`, from (1, 0).
    fn products(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: AccTy<'ctx>,
        a: &Elements<'_, 'ctx>,
    ) -> VrResult<Vec<FloatValue<'ctx>>> {
        if !a.ty().elem.is_complex() {
            return self.accumulate(g, t, a, &[t.acc.const_float(1.0)], &mut |cg, s, x| {
                Ok(vec![cg.builder.build_float_mul(s[0], x[0], "")?])
            });
        }
        let init = [t.acc.const_float(1.0), t.acc.const_zero()];
        self.accumulate(g, t, a, &init, &mut |cg, s, x| {
            let b = &cg.builder;
            let (r, i, xr, xi) = (s[0], s[1], x[0], x[1]);
            let rr = b.build_float_mul(r, xr, "")?;
            let ii = b.build_float_mul(i, xi, "")?;
            let ri = b.build_float_mul(r, xi, "")?;
            let ir = b.build_float_mul(i, xr, "")?;
            Ok(vec![b.build_float_sub(rr, ii, "")?, b.build_float_add(ri, ir, "")?])
        })
    }

    /// The number of elements of `a` in the accumulator type (exact in f80).
    fn count(&self, t: AccTy<'ctx>, a: &Elements<'_, 'ctx>) -> VrResult<FloatValue<'ctx>> {
        let n = self.product_of(a.dims())?;
        Ok(self.builder.build_signed_int_to_float(n, t.acc, "n")?)
    }

    /// R's `mean` of doubles (summary.c, `real_mean`), step for step as the interpreter's
    /// `extended::mean_refined`.
    fn mean_refined(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: AccTy<'ctx>,
        a: &Elements<'_, 'ctx>,
    ) -> VrResult<FloatValue<'ctx>> {
        let n = self.count(t, a)?;
        let n_elem = self
            .builder
            .build_signed_int_to_float(self.product_of(a.dims())?, t.elem, "")?;
        let total = self.sums(g, t, a)?[0];
        let finite_total = self.finite(t, total)?;
        let s_slot = g.alloca_builder.build_alloca(t.acc, "mean.s")?;
        let out = g.alloca_builder.build_alloca(t.elem, "mean")?;
        let bb = |s: &Self, name| s.cx.append_basic_block(g.llfn, name);
        let (divide, retry, second) = (
            bb(self, "mean.div"),
            bb(self, "mean.retry"),
            bb(self, "mean.second"),
        );
        let (correct, refine, refine_small, done) = (
            bb(self, "mean.correct"),
            bb(self, "mean.refine"),
            bb(self, "mean.refine_small"),
            bb(self, "mean.done"),
        );
        self.builder
            .build_conditional_branch(finite_total, divide, retry)?;

        self.builder.position_at_end(divide);
        let s = self.builder.build_float_div(total, n, "")?;
        self.builder.build_store(s_slot, s)?;
        self.builder.build_unconditional_branch(second)?;

        // The sum overflowed the element type: add x / n (divided in the element type).
        self.builder.position_at_end(retry);
        let s = self.accumulate(g, t, a, &[t.acc.const_zero()], &mut |cg, s, x| {
            let x = cg.round(t, x[0])?; // back to the element (exact: it was extended)
            let q = cg.builder.build_float_div(x, n_elem, "")?;
            let q = cg.extend(t, q)?;
            Ok(vec![cg.builder.build_float_add(s[0], q, "")?])
        })?[0];
        self.builder.build_store(s_slot, s)?;
        self.builder.build_unconditional_branch(second)?;

        self.builder.position_at_end(second);
        let s = self.builder.build_load(t.acc, s_slot, "")?.into_float_value();
        self.builder.build_store(out, self.round(t, s)?)?;
        let finite_s = self.finite(t, s)?;
        self.builder.build_conditional_branch(finite_s, correct, done)?;
        self.builder.position_at_end(correct);
        self.builder
            .build_conditional_branch(finite_total, refine, refine_small)?;

        // Add the mean of the residuals x - s.
        self.builder.position_at_end(refine);
        let r = self.accumulate(g, t, a, &[t.acc.const_zero()], &mut |cg, acc, x| {
            let d = cg.builder.build_float_sub(x[0], s, "")?;
            Ok(vec![cg.builder.build_float_add(acc[0], d, "")?])
        })?[0];
        let q = self.builder.build_float_div(r, n, "")?;
        let fixed = self.builder.build_float_add(s, q, "")?;
        self.builder.build_store(out, self.round(t, fixed)?)?;
        self.builder.build_unconditional_branch(done)?;

        // After an overflow: add the residuals divided by n one by one.
        self.builder.position_at_end(refine_small);
        let r = self.accumulate(g, t, a, &[t.acc.const_zero()], &mut |cg, acc, x| {
            let d = cg.builder.build_float_sub(x[0], s, "")?;
            let d = cg.builder.build_float_div(d, n, "")?;
            Ok(vec![cg.builder.build_float_add(acc[0], d, "")?])
        })?[0];
        let fixed = self.builder.build_float_add(s, r, "")?;
        self.builder.build_store(out, self.round(t, fixed)?)?;
        self.builder.build_unconditional_branch(done)?;

        self.builder.position_at_end(done);
        Ok(self.builder.build_load(t.elem, out, "")?.into_float_value())
    }

    /// R's `mean` of complex numbers (summary.c, `complex_mean`): each part's sum over
    /// n; when both are finite, each corrected by the mean of its residuals.
    fn mean_refined_complex(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        t: AccTy<'ctx>,
        a: &Elements<'_, 'ctx>,
    ) -> VrResult<Vec<FloatValue<'ctx>>> {
        let n = self.count(t, a)?;
        let sums = self.sums(g, t, a)?;
        let m: Vec<FloatValue<'ctx>> = sums
            .iter()
            .map(|v| Ok(self.builder.build_float_div(*v, n, "")?))
            .collect::<VrResult<_>>()?;
        let outs = [
            g.alloca_builder.build_alloca(t.elem, "mean.re")?,
            g.alloca_builder.build_alloca(t.elem, "mean.im")?,
        ];
        for (p, v) in outs.iter().zip(&m) {
            self.builder.build_store(*p, self.round(t, *v)?)?;
        }
        let both = self
            .builder
            .build_and(self.finite(t, m[0])?, self.finite(t, m[1])?, "")?;
        let refine = self.cx.append_basic_block(g.llfn, "cmean.refine");
        let done = self.cx.append_basic_block(g.llfn, "cmean.done");
        self.builder.build_conditional_branch(both, refine, done)?;
        self.builder.position_at_end(refine);
        let zeros = [t.acc.const_zero(), t.acc.const_zero()];
        let centre = m.clone();
        let r = self.accumulate(g, t, a, &zeros, &mut |cg, acc, x| {
            (0..2)
                .map(|k| {
                    let d = cg.builder.build_float_sub(x[k], centre[k], "")?;
                    Ok(cg.builder.build_float_add(acc[k], d, "")?)
                })
                .collect()
        })?;
        for k in 0..2 {
            let q = self.builder.build_float_div(r[k], n, "")?;
            let fixed = self.builder.build_float_add(m[k], q, "")?;
            self.builder.build_store(outs[k], self.round(t, fixed)?)?;
        }
        self.builder.build_unconditional_branch(done)?;
        self.builder.position_at_end(done);
        outs.iter()
            .map(|p| Ok(self.builder.build_load(t.elem, *p, "")?.into_float_value()))
            .collect()
    }

    /// `(cumsum A)`, `(cumprod A)` of a vector: a fresh vector whose element k is the
    /// running sum (product) after element k, accumulated in `acc` and rounded per
    /// element, or in the element type (integers wrap).
    pub(crate) fn scan(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        op: ScanOp,
        arg: &Expr,
        acc: Option<Accum>,
    ) -> VrResult<ArrayView<'ctx>> {
        let (a, name) = self.array_arg(g, arg)?;
        if a.dims.len() != 1 {
            return Err(self.type_err(g, format!("`{}` of `{name}` ({})", op.name(), a.ty)));
        }
        let elem = a.ty.elem;
        let out_ty = ArrayType::new(elem, 1, fresh_layout(a.ty.layout));
        let out = self.alloc_with_dims(g, out_ty, &a.dims)?;
        let (src, dst) = (Operand::Array(a.clone()), out.clone());
        match acc {
            Some(_) => {
                let t = self.acc_ty(g, elem, acc)?;
                let slot = g.alloca_builder.build_alloca(t.acc, "scan.acc")?;
                let init = match op {
                    ScanOp::Sum => t.acc.const_zero(),
                    ScanOp::Prod => t.acc.const_float(1.0),
                };
                self.builder.build_store(slot, init)?;
                self.counted_loop(g, a.dims[0], |cg, g, i| {
                    let x = cg.load_operand(g, &src, &[i])?.float();
                    let x = cg.extend(t, x)?;
                    let s = cg.builder.build_load(t.acc, slot, "")?.into_float_value();
                    let s = match op {
                        ScanOp::Sum => cg.builder.build_float_add(s, x, "")?,
                        ScanOp::Prod => cg.builder.build_float_mul(s, x, "")?,
                    };
                    cg.builder.build_store(slot, s)?;
                    let r = cg.round(t, s)?;
                    cg.builder.build_store(cg.elem_addr(g, &dst, &[i])?, r)?;
                    Ok(())
                })?;
            }
            None => {
                let mt = self.mem_type(elem, &g.f.name)?;
                let slot = g.alloca_builder.build_alloca(mt, "scan.acc")?;
                let (init, step) = match op {
                    ScanOp::Sum => (self.zero(g, elem)?, BinOp::Add),
                    ScanOp::Prod => (self.one(g, elem)?, BinOp::Mul),
                };
                let m = self.reg_to_mem(init)?;
                self.builder.build_store(slot, m)?;
                self.counted_loop(g, a.dims[0], |cg, g, i| {
                    let x = cg.load_operand(g, &src, &[i])?;
                    let raw = cg.builder.build_load(mt, slot, "")?;
                    let cur = Val {
                        v: cg.mem_to_reg(raw, elem)?,
                        ty: elem,
                    };
                    let next = cg.binary(g, step, cur, x)?;
                    let m = cg.reg_to_mem(next)?;
                    cg.builder.build_store(slot, m)?;
                    cg.builder.build_store(cg.elem_addr(g, &dst, &[i])?, m)?;
                    Ok(())
                })?;
            }
        }
        Ok(out)
    }
}

/// Accumulators per element: 2 for complex types (re, im), else 1.
fn lanes(elem: ScalarType) -> usize {
    if elem.is_complex() {
        2
    } else {
        1
    }
}
