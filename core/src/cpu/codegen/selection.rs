//! Selections: what `(index A i...)` picks when some index is not a scalar, for reads
//! (a fresh array) and writes (`slice_assign.rs`). Mirrors the interpreter's
//! `interp/index.rs` step by step so results and errors agree field for field:
//!
//! 1. every index is evaluated left to right into its written form ([`Written`]): a
//!    scalar, a range's endpoints and step, or a 1-D integer (gather) or bool (mask) array;
//! 2. each axis of the indexed space (one per index; with `:flat` the last spans the
//!    remaining dimensions in layout order; missing trailing indices are full ranges) is
//!    resolved in order: bounds of scalars, range endpoints (exact, in 128-bit
//!    arithmetic), every gather item, mask lengths; the first failure is the error;
//! 3. the selected elements are visited in logical order, the first non-scalar axis
//!    slowest (gathers over several axes are outer products), without building a list of
//!    positions: ranges and gathers are counted loops, a mask axis walks its extent and
//!    skips false entries, so no temporary memory is needed.

use super::elementwise::fresh_layout;
use super::{ArrayView, CodeGen, FnGen, Val};
use crate::cpu::abi::ErrorCode;
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, IndexFlags};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

/// An index after evaluation, still in the program's terms (index base, negatives).
#[derive(Clone)]
pub(crate) enum Written<'ctx> {
    Scalar(IntValue<'ctx>),
    /// A range; an absent endpoint is the first/last position in the step's direction.
    Range {
        start: Option<IntValue<'ctx>>,
        stop: Option<IntValue<'ctx>>,
        step: IntValue<'ctx>,
    },
    /// A 1-D `i32`/`i64` array: its items are positions as written.
    Gather(ArrayView<'ctx>),
    /// A 1-D `bool` array of the axis's extent.
    Mask(ArrayView<'ctx>),
}

/// One axis of the indexed space: its extent and the dimensions it spans as
/// (extent, stride) pairs, fastest-varying first (one pair unless flattened).
#[derive(Clone)]
struct Axis<'ctx> {
    extent: IntValue<'ctx>,
    parts: Vec<(IntValue<'ctx>, IntValue<'ctx>)>,
}

/// What a resolved index picks on its axis (positions already checked).
#[derive(Clone)]
enum Pick<'ctx> {
    /// One position, folded into the selection's base offset: the axis disappears.
    One,
    /// `count` positions `first + i * step`.
    Range {
        first: IntValue<'ctx>,
        step: IntValue<'ctx>,
        count: IntValue<'ctx>,
    },
    /// The positions named by the items of a 1-D integer array, in order.
    Gather { items: ArrayView<'ctx> },
    /// The positions where a bool array of the axis's extent is true, in order.
    Mask { mask: ArrayView<'ctx> },
}

/// The elements an indexing selects.
#[derive(Clone)]
pub(crate) struct Selection<'ctx> {
    pub elem: ScalarType,
    data: PointerValue<'ctx>,
    /// Element offset of the positions fixed by scalar indices.
    base: IntValue<'ctx>,
    axes: Vec<(Axis<'ctx>, Pick<'ctx>)>,
    /// Extents of the result: one per non-scalar axis, in order.
    pub dims: Vec<IntValue<'ctx>>,
    negative: bool,
}

impl<'ctx> Selection<'ctx> {
    /// The gather and mask arrays of the selection (read again while visiting it).
    pub(crate) fn index_arrays_mut(&mut self) -> impl Iterator<Item = &mut ArrayView<'ctx>> {
        self.axes.iter_mut().filter_map(|(_, pick)| match pick {
            Pick::Gather { items } => Some(items),
            Pick::Mask { mask } => Some(mask),
            _ => None,
        })
    }
}

/// Receives the result's multi-index and the address of the selected element.
pub(crate) type SelBody<'a, 'ctx, 'm> = dyn FnMut(
        &mut CodeGen<'ctx, 'm>,
        &mut FnGen<'ctx, 'm>,
        &[IntValue<'ctx>],
        PointerValue<'ctx>,
    ) -> VrResult<()>
    + 'a;

/// A scalar element or a fresh array read by an indexing.
pub(crate) enum Selected<'ctx> {
    Scalar(Val<'ctx>),
    Array(ArrayView<'ctx>),
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Is `(index array indices... flags)` without `:view` array-valued: some index a
    /// range or an array, or fewer indices than dimensions without `:flat`? Decided from
    /// the verifier's types, without evaluating anything.
    pub(crate) fn selection_is_array(
        &self,
        g: &FnGen<'ctx, 'm>,
        array: &Expr,
        indices: &[Expr],
        flags: IndexFlags,
    ) -> bool {
        let fewer = match crate::vrir::verify::expr_type(self.vm, g.f, array) {
            Ok(Type::Array(a)) => indices.len() < a.ndims as usize,
            _ => false,
        };
        (fewer && !flags.flatten)
            || indices.iter().any(|ix| match ix {
                Expr::Range { .. } => true,
                _ => !matches!(
                    crate::vrir::verify::expr_type(self.vm, g.f, ix),
                    Ok(Type::Scalar { .. })
                ),
            })
    }

    /// An integer scalar index or endpoint, widened to `i64`.
    fn index_i64(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        e: &Expr,
        name: &str,
    ) -> VrResult<IntValue<'ctx>> {
        let v = self.expr(g, e)?;
        match v.ty {
            ScalarType::I64 => Ok(v.int()),
            ScalarType::I32 => {
                Ok(self
                    .builder
                    .build_int_s_extend(v.int(), self.cx.i64_type(), "")?)
            }
            t => Err(self.type_err(g, format!("index of type {t} into `{name}`"))),
        }
    }

    /// Evaluate the indices left to right into their written form.
    pub(crate) fn eval_written(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: &str,
        indices: &[Expr],
    ) -> VrResult<Vec<Written<'ctx>>> {
        let mut out = Vec::with_capacity(indices.len());
        for ix in indices {
            let w = match ix {
                Expr::Range { start, stop, step } => {
                    let end = |s: &mut Self, g: &mut FnGen<'ctx, 'm>, e: &Option<Box<Expr>>| {
                        e.as_deref().map(|e| s.index_i64(g, e, name)).transpose()
                    };
                    let start = end(self, g, start)?;
                    let stop = end(self, g, stop)?;
                    let step = end(self, g, step)?.unwrap_or(self.i64c(1));
                    Written::Range { start, stop, step }
                }
                _ => match crate::vrir::verify::expr_type(self.vm, g.f, ix)? {
                    Type::Scalar { elem } if elem.is_int() => {
                        Written::Scalar(self.index_i64(g, ix, name)?)
                    }
                    Type::Array(a)
                        if a.ndims == 1 && (a.elem.is_int() || a.elem == ScalarType::Bool) =>
                    {
                        let (v, _) = self.array_arg(g, ix)?;
                        if v.ty.elem == ScalarType::Bool {
                            Written::Mask(v)
                        } else {
                            Written::Gather(v)
                        }
                    }
                    // A range value (a variable, a call, a tuple item): a stored range
                    // always has its three parts.
                    Type::Range => {
                        let r = self.range_values(g, ix)?[0];
                        Written::Range {
                            start: Some(r.start),
                            stop: Some(r.stop),
                            step: r.step,
                        }
                    }
                    t => return Err(self.type_err(g, format!("index of type {t} into `{name}`"))),
                },
            };
            out.push(w);
        }
        Ok(out)
    }

    /// The 0-based position a written index names (not checked): `i - base`, or with
    /// `:neg` a negative `i` counted from the end.
    pub(crate) fn position(
        &self,
        i: IntValue<'ctx>,
        extent: IntValue<'ctx>,
        negative: bool,
    ) -> VrResult<IntValue<'ctx>> {
        let b = &self.builder;
        let p = b.build_int_sub(i, self.i64c(self.vm.index_base as i64), "")?;
        if !negative {
            return Ok(p);
        }
        let neg = b.build_int_compare(IntPredicate::SLT, i, self.i64c(0), "")?;
        let wrapped = b.build_int_add(i, extent, "")?;
        Ok(b.build_select(neg, wrapped, p, "")?.into_int_value())
    }

    /// Element offset of position `p` (in range) on an axis.
    fn axis_offset(&self, axis: &Axis<'ctx>, p: IntValue<'ctx>) -> VrResult<IntValue<'ctx>> {
        let b = &self.builder;
        if let [(_, stride)] = axis.parts.as_slice() {
            return Ok(b.build_int_mul(p, *stride, "")?);
        }
        // Split p over the flattened dimensions, fastest first.
        let mut off = self.i64c(0);
        let mut rest = p;
        for (j, (ext, stride)) in axis.parts.iter().enumerate() {
            let pk = if j + 1 == axis.parts.len() {
                rest
            } else {
                let r = b.build_int_unsigned_rem(rest, *ext, "")?;
                rest = b.build_int_unsigned_div(rest, *ext, "")?;
                r
            };
            let t = b.build_int_mul(pk, *stride, "")?;
            off = b.build_int_add(off, t, "")?;
        }
        Ok(off)
    }

    /// Element `i` (in range) of a 1-D array, in register form.
    fn item(
        &self,
        g: &FnGen<'ctx, 'm>,
        a: &ArrayView<'ctx>,
        i: IntValue<'ctx>,
    ) -> VrResult<Val<'ctx>> {
        let p = self.elem_addr(g, a, &[i])?;
        let raw = self
            .builder
            .build_load(self.mem_type(a.ty.elem, &g.f.name)?, p, "")?;
        Ok(Val {
            v: self.mem_to_reg(raw, a.ty.elem)?,
            ty: a.ty.elem,
        })
    }

    /// Gather item `i` as a written index (`i64`).
    fn gather_item(
        &self,
        g: &FnGen<'ctx, 'm>,
        items: &ArrayView<'ctx>,
        i: IntValue<'ctx>,
    ) -> VrResult<IntValue<'ctx>> {
        let v = self.item(g, items, i)?.int();
        Ok(if items.ty.elem == ScalarType::I64 {
            v
        } else {
            self.builder.build_int_s_extend(v, self.cx.i64_type(), "")?
        })
    }

    /// Fail with the interpreter's out-of-bounds error unless `ok`: the access as written
    /// (`A[0, 1:_, [4, 9], mask]`) is assembled on the error path only.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_in_bounds(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        ok: IntValue<'ctx>,
        name: Option<&str>,
        written: IntValue<'ctx>,
        extent: IntValue<'ctx>,
        dim: usize,
        access: &[Written<'ctx>],
    ) -> VrResult<()> {
        let fail_bb = self.cx.append_basic_block(g.llfn, "oob");
        let ok_bb = self.cx.append_basic_block(g.llfn, "inbounds");
        self.builder.build_conditional_branch(ok, ok_bb, fail_bb)?;
        self.builder.position_at_end(fail_bb);
        let mut shape = Vec::new();
        let mut vals = Vec::new();
        for w in access {
            match w {
                Written::Scalar(i) => {
                    shape.push("S".to_string());
                    vals.push(*i);
                }
                Written::Range { start, stop, step } => {
                    shape.push(format!(
                        "R{}{}",
                        start.is_some() as u8,
                        stop.is_some() as u8
                    ));
                    vals.extend(start.iter().chain(stop.iter()).copied());
                    vals.push(*step);
                }
                Written::Gather(items) => {
                    // The length, then the first items (loads guarded by the length).
                    shape.push("G".to_string());
                    let n = items.dims[0];
                    vals.push(n);
                    let mt = self.mem_type(items.ty.elem, &g.f.name)?;
                    let spare = g.alloca_builder.build_alloca(mt, "spare")?;
                    self.builder.build_store(spare, mt.const_zero())?;
                    for j in 0..crate::cpu::abi::NOTE_GATHER_ITEMS {
                        let jv = self.i64c(j as i64);
                        let has = self
                            .builder
                            .build_int_compare(IntPredicate::SLT, jv, n, "")?;
                        let at = self.elem_addr(g, items, &[jv])?;
                        let p = self
                            .builder
                            .build_select(has, at, spare, "")?
                            .into_pointer_value();
                        let v = self.builder.build_load(mt, p, "")?.into_int_value();
                        vals.push(if items.ty.elem == ScalarType::I64 {
                            v
                        } else {
                            self.builder.build_int_s_extend(v, self.cx.i64_type(), "")?
                        });
                    }
                }
                Written::Mask(_) => shape.push("M".to_string()),
            }
        }
        let extra = Some((written, extent, self.i64c(dim as i64)));
        self.fail_noted(
            g,
            ErrorCode::OutOfBounds,
            name,
            extra,
            Some((&shape.join(","), &vals)),
        )?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    /// Resolve written indices into `src` (named `name` in errors, if a variable): the
    /// axes, each index checked in order as the interpreter checks them.
    pub(crate) fn resolve_selection(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        src: &ArrayView<'ctx>,
        name: Option<&str>,
        written: &[Written<'ctx>],
        flags: IndexFlags,
    ) -> VrResult<Selection<'ctx>> {
        let n = src.dims.len();
        let d = written.len();
        if d == 0 || d > n {
            return Err(self.type_err(g, format!("{d} indices into an array of rank {n}")));
        }
        let simple = |k: usize| Axis {
            extent: src.dims[k],
            parts: vec![(src.dims[k], src.strides[k])],
        };
        let mut axes: Vec<Axis<'ctx>> = Vec::with_capacity(n);
        if flags.flatten && d < n {
            axes.extend((0..d - 1).map(simple));
            let mut parts: Vec<_> = (d - 1..n).map(|k| (src.dims[k], src.strides[k])).collect();
            if src.ty.layout != Layout::Col {
                // Row-major and strided: the last dimension varies fastest.
                parts.reverse();
            }
            let mut extent = self.i64c(1);
            for (e, _) in &parts {
                extent = self.builder.build_int_mul(extent, *e, "")?;
            }
            axes.push(Axis { extent, parts });
        } else {
            axes.extend((0..n).map(simple));
        }
        let full = Written::Range {
            start: None,
            stop: None,
            step: self.i64c(1),
        };
        let mut base = self.i64c(0);
        let mut picked = Vec::with_capacity(axes.len());
        let mut dims = Vec::new();
        for (k, axis) in axes.into_iter().enumerate() {
            let w = written.get(k).unwrap_or(&full).clone();
            let extent = axis.extent;
            let pick = match w {
                Written::Scalar(i) => {
                    let p = self.position(i, extent, flags.negative)?;
                    let ok = self
                        .builder
                        .build_int_compare(IntPredicate::ULT, p, extent, "")?;
                    self.check_in_bounds(g, ok, name, i, extent, k, written)?;
                    let off = self.axis_offset(&axis, p)?;
                    base = self.builder.build_int_add(base, off, "")?;
                    Pick::One
                }
                Written::Range { start, stop, step } => {
                    let (first, count) =
                        self.resolve_range(g, name, start, stop, step, extent, k, flags, written)?;
                    dims.push(count);
                    Pick::Range { first, step, count }
                }
                Written::Gather(items) => {
                    let count = items.dims[0];
                    let it = items.clone();
                    self.counted_loop(g, count, |s, g, j| {
                        let i = s.gather_item(g, &it, j)?;
                        let p = s.position(i, extent, flags.negative)?;
                        let ok = s
                            .builder
                            .build_int_compare(IntPredicate::ULT, p, extent, "")?;
                        s.check_in_bounds(g, ok, name, i, extent, k, written)
                    })?;
                    dims.push(count);
                    Pick::Gather { items }
                }
                Written::Mask(mask) => {
                    let len = mask.dims[0];
                    let same = self
                        .builder
                        .build_int_compare(IntPredicate::EQ, len, extent, "")?;
                    self.check(
                        g,
                        same,
                        ErrorCode::MaskLength,
                        name,
                        Some((len, extent, self.i64c(k as i64))),
                    )?;
                    let i64t = self.cx.i64_type();
                    let counter = g.alloca_builder.build_alloca(i64t, "mask.count")?;
                    self.builder.build_store(counter, self.i64c(0))?;
                    let m = mask.clone();
                    self.counted_loop(g, len, |s, g, j| {
                        let set = s.item(g, &m, j)?.int();
                        let c = s.builder.build_load(i64t, counter, "")?.into_int_value();
                        let add = s.builder.build_int_z_extend(set, i64t, "")?;
                        let c = s.builder.build_int_add(c, add, "")?;
                        s.builder.build_store(counter, c)?;
                        Ok(())
                    })?;
                    let count = self.builder.build_load(i64t, counter, "")?.into_int_value();
                    dims.push(count);
                    Pick::Mask { mask }
                }
            };
            picked.push((axis, pick));
        }
        Ok(Selection {
            elem: src.ty.elem,
            data: src.data,
            base,
            axes: picked,
            dims,
            negative: flags.negative,
        })
    }

    /// A range index on an axis of `extent`: its first position and count, after the
    /// interpreter's checks (zero step; a non-empty range must lie within the extent),
    /// computed in 128 bits so that no written value can overflow.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn resolve_range(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        name: Option<&str>,
        start: Option<IntValue<'ctx>>,
        stop: Option<IntValue<'ctx>>,
        step: IntValue<'ctx>,
        extent: IntValue<'ctx>,
        k: usize,
        flags: IndexFlags,
        access: &[Written<'ctx>],
    ) -> VrResult<(IntValue<'ctx>, IntValue<'ctx>)> {
        let zero64 = self.i64c(0);
        let nz = self
            .builder
            .build_int_compare(IntPredicate::NE, step, zero64, "")?;
        self.check(g, nz, ErrorCode::ZeroStepIndex, None, None)?;
        let t = self.cx.i128_type();
        let b = &self.builder;
        let wide = |v: IntValue<'ctx>| b.build_int_s_extend(v, t, "");
        let ext = wide(extent)?;
        let (zero, one) = (t.const_zero(), t.const_int(1, false));
        let last = b.build_int_sub(ext, one, "")?;
        let s = wide(step)?;
        let up = b.build_int_compare(IntPredicate::SGT, step, zero64, "")?;
        let base = t.const_int(self.vm.index_base as u64, false);
        let pos = |i: IntValue<'ctx>| -> VrResult<IntValue<'ctx>> {
            let w = wide(i)?;
            let p = b.build_int_sub(w, base, "")?;
            if !flags.negative {
                return Ok(p);
            }
            let neg = b.build_int_compare(IntPredicate::SLT, w, zero, "")?;
            let wrapped = b.build_int_add(w, ext, "")?;
            Ok(b.build_select(neg, wrapped, p, "")?.into_int_value())
        };
        let p0 = match start {
            Some(i) => pos(i)?,
            None => b.build_select(up, zero, last, "")?.into_int_value(),
        };
        let p1 = match stop {
            Some(i) => pos(i)?,
            None => b.build_select(up, last, zero, "")?.into_int_value(),
        };
        let dist_up = b.build_int_sub(p1, p0, "")?;
        let dist_down = b.build_int_sub(p0, p1, "")?;
        let dist = b.build_select(up, dist_up, dist_down, "")?.into_int_value();
        let neg_s = b.build_int_neg(s, "")?;
        let mag = b.build_select(up, s, neg_s, "")?.into_int_value();
        let nonneg = b.build_int_compare(IntPredicate::SGE, dist, zero, "")?;
        let q = b.build_int_signed_div(dist, mag, "")?;
        let q1 = b.build_int_add(q, one, "")?;
        let count = b.build_select(nonneg, q1, zero, "")?.into_int_value();
        let empty = b.build_int_compare(IntPredicate::EQ, count, zero, "")?;
        // 0 <= p0 <= last, as one unsigned comparison.
        let in0 = b.build_int_compare(IntPredicate::ULT, p0, ext, "")?;
        let ok0 = b.build_or(empty, in0, "")?;
        let written0 = start.unwrap_or(self.i64c(self.vm.index_base as i64));
        self.check_in_bounds(g, ok0, name, written0, extent, k, access)?;
        let b = &self.builder;
        let cm1 = b.build_int_sub(count, one, "")?;
        let span = b.build_int_mul(cm1, s, "")?;
        let pn = b.build_int_add(p0, span, "")?;
        let inn = b.build_int_compare(IntPredicate::ULT, pn, ext, "")?;
        let okn = b.build_or(empty, inn, "")?;
        let writtenn = match stop {
            Some(i) => i,
            None => {
                let l = b.build_int_sub(extent, self.i64c(1), "")?;
                b.build_int_add(l, self.i64c(self.vm.index_base as i64), "")?
            }
        };
        self.check_in_bounds(g, okn, name, writtenn, extent, k, access)?;
        // Both within the extent now (or the range is empty): they fit in 64 bits.
        let b = &self.builder;
        let first = b.build_select(empty, zero, p0, "")?.into_int_value();
        let i64t = self.cx.i64_type();
        Ok((
            b.build_int_truncate(first, i64t, "")?,
            b.build_int_truncate(count, i64t, "")?,
        ))
    }

    /// Visit every selected element in logical order (first non-scalar axis slowest).
    pub(crate) fn for_each_selected(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        sel: &Selection<'ctx>,
        body: &mut SelBody<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        let mut out = Vec::with_capacity(sel.dims.len());
        self.selected_level(g, sel, 0, sel.base, &mut out, body)
    }

    fn selected_level(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        sel: &Selection<'ctx>,
        k: usize,
        off: IntValue<'ctx>,
        out: &mut Vec<IntValue<'ctx>>,
        body: &mut SelBody<'_, 'ctx, 'm>,
    ) -> VrResult<()> {
        let Some((axis, pick)) = sel.axes.get(k) else {
            let mt = self.mem_type(sel.elem, &g.f.name)?;
            // SAFETY (LLVM): every position was checked against its extent.
            let p = unsafe { self.builder.build_gep(mt, sel.data, &[off], "")? };
            return body(self, g, out, p);
        };
        let mut descend = |s: &mut Self,
                           g: &mut FnGen<'ctx, 'm>,
                           i: IntValue<'ctx>,
                           p: IntValue<'ctx>,
                           out: &mut Vec<IntValue<'ctx>>|
         -> VrResult<()> {
            let o = s.axis_offset(axis, p)?;
            let o = s.builder.build_int_add(off, o, "")?;
            out.push(i);
            let r = s.selected_level(g, sel, k + 1, o, out, body);
            out.pop();
            r
        };
        match pick {
            Pick::One => self.selected_level(g, sel, k + 1, off, out, body),
            Pick::Range { first, step, count } => self.counted_loop(g, *count, |s, g, i| {
                let t = s.builder.build_int_mul(i, *step, "")?;
                let p = s.builder.build_int_add(*first, t, "")?;
                descend(s, g, i, p, out)
            }),
            Pick::Gather { items } => self.counted_loop(g, items.dims[0], |s, g, i| {
                let w = s.gather_item(g, items, i)?;
                let p = s.position(w, axis.extent, sel.negative)?;
                descend(s, g, i, p, out)
            }),
            Pick::Mask { mask } => {
                // Walk the extent; the result's index counts the true entries so far.
                let i64t = self.cx.i64_type();
                let counter = g.alloca_builder.build_alloca(i64t, "mask.at")?;
                self.builder.build_store(counter, self.i64c(0))?;
                self.counted_loop(g, axis.extent, |s, g, p| {
                    let set = s.item(g, mask, p)?.int();
                    let then_bb = s.cx.append_basic_block(g.llfn, "mask.set");
                    let next_bb = s.cx.append_basic_block(g.llfn, "mask.next");
                    s.builder.build_conditional_branch(set, then_bb, next_bb)?;
                    s.builder.position_at_end(then_bb);
                    let i = s.builder.build_load(i64t, counter, "")?.into_int_value();
                    descend(s, g, i, p, out)?;
                    let i1 = s.builder.build_int_add(i, s.i64c(1), "")?;
                    s.builder.build_store(counter, i1)?;
                    s.builder.build_unconditional_branch(next_bb)?;
                    s.builder.position_at_end(next_bb);
                    Ok(())
                })
            }
        }
    }

    /// `(index array indices... flags)` without `:view`, read: the element when every
    /// index is a scalar (after filling), otherwise a fresh array of the source's layout
    /// (`strided` becoming `row`) holding the selection.
    pub(crate) fn select_read(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &Expr,
        indices: &[Expr],
        flags: IndexFlags,
    ) -> VrResult<Selected<'ctx>> {
        let (src, name) = match array {
            Expr::Var { name } => (self.array_view(g, name)?, Some(name.as_str())),
            _ => (self.array_arg(g, array)?.0, None),
        };
        let written = self.eval_written(g, name.unwrap_or("array"), indices)?;
        let sel = self.resolve_selection(g, &src, name, &written, flags)?;
        let mt = self.mem_type(sel.elem, &g.f.name)?;
        if sel.dims.is_empty() {
            let mut got = None;
            self.for_each_selected(g, &sel, &mut |cg, _, _, p| {
                got = Some(cg.builder.build_load(mt, p, "")?);
                Ok(())
            })?;
            let raw = got.expect("one element visited");
            return Ok(Selected::Scalar(Val {
                v: self.mem_to_reg(raw, sel.elem)?,
                ty: sel.elem,
            }));
        }
        let ty = ArrayType::new(sel.elem, sel.dims.len() as u32, fresh_layout(src.ty.layout));
        let out = self.alloc_with_dims(g, ty, &sel.dims)?;
        let o = out.clone();
        self.for_each_selected(g, &sel, &mut |cg, g, idx, p| {
            let v = cg.builder.build_load(mt, p, "")?;
            cg.builder.build_store(cg.elem_addr(g, &o, idx)?, v)?;
            Ok(())
        })?;
        Ok(Selected::Array(out))
    }
}
