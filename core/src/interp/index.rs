//! Array indexing (docs/vrir-semantics.md, "Indexing"): turning the indices as written
//! into 0-based positions, per dimension or over flattened trailing dimensions, and
//! reading (element, copy, view) or writing the selected elements.
//!
//! The steps: `axes` describes the space the indices address (one axis per index, the
//! last possibly spanning several flattened dimensions, plus implicit trailing full
//! ranges); `resolve` converts each written index into positions on its axis, checking
//! bounds; `read`/`write` map the selected positions to buffer positions.

use super::array_ops::{fresh_layout, from_logical, store};
use super::internal;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{Array, MultiIndex, Scalar, Value};
use crate::vrir::ast::IndexFlags;
use crate::vrir::types::{ArrayType, Layout};

/// An index after evaluation, still in the program's terms (index base, negatives).
#[derive(Clone, Debug)]
pub(crate) enum Written {
    Scalar(i64),
    /// A range; an absent endpoint is the first/last position in the step's direction.
    Range {
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    },
    Gather(Vec<i64>),
    Mask(Vec<bool>),
}

impl Written {
    /// The implicit index of a trailing dimension the program did not index.
    const FULL: Written = Written::Range {
        start: None,
        stop: None,
        step: 1,
    };
}

/// What an error names: the array variable (when the indexed expression is one), and
/// how written indices become positions.
pub(crate) struct IndexCtx<'a> {
    pub(crate) variable: Option<&'a str>,
    pub(crate) base: i64,
    pub(crate) flags: IndexFlags,
}

/// One axis of the indexed space: its extent, and the dimensions it spans as
/// (extent, stride) pairs, fastest-varying first (one pair unless flattened).
struct Axis {
    extent: usize,
    parts: Vec<(usize, isize)>,
}

impl Axis {
    /// Buffer offset (relative to the array's offset) of position `p` on this axis.
    fn offset(&self, p: usize) -> isize {
        let mut rest = p;
        let mut off = 0isize;
        for &(ext, stride) in &self.parts {
            if ext == 0 {
                return off;
            }
            off += (rest % ext) as isize * stride;
            rest /= ext;
        }
        off
    }
}

/// A resolved index on one axis.
enum Sel {
    /// One position: this axis disappears from the result.
    One(usize),
    /// Several positions in order; `range` is (first, step) when they form a range.
    Many {
        positions: Vec<usize>,
        range: Option<(usize, isize)>,
    },
}

/// The axes addressed by `d` indices into `a` (docs: trailing full ranges, or `:flat`
/// flattening the dimensions d-1 .. n-1 in the layout's order).
fn axes(a: &Array, d: usize, flags: IndexFlags) -> VrResult<Vec<Axis>> {
    let n = a.ndims();
    if d == 0 || d > n {
        return Err(internal(format!("{d} indices into an array of rank {n}")));
    }
    let simple = |k: usize| Axis {
        extent: a.dims[k],
        parts: vec![(a.dims[k], a.strides[k])],
    };
    if !(flags.flatten && d < n) {
        return Ok((0..n).map(simple).collect());
    }
    let mut out: Vec<Axis> = (0..d - 1).map(simple).collect();
    let mut parts: Vec<(usize, isize)> = (d - 1..n).map(|k| (a.dims[k], a.strides[k])).collect();
    if a.ty.layout != Layout::Col {
        // Row-major and strided: the last dimension varies fastest.
        parts.reverse();
    }
    let extent = super::array_ops::element_count(&a.dims[d - 1..])?;
    out.push(Axis { extent, parts });
    Ok(out)
}

/// The error of an index outside its extent; `resolve_all` prefixes the access as
/// written (`A[0, 7]: index 7 out of bounds 0..5 in dimension 1`, bounds half-open in the
/// module's index base).
fn out_of_bounds(ctx: &IndexCtx, written: i64, extent: usize, dim: usize) -> VrError {
    let lo = ctx.base;
    let hi = extent as i64 + ctx.base;
    let mut e = VrError::new(
        ErrorKind::OutOfBounds,
        format!("index {written} out of bounds {lo}..{hi} in dimension {dim}"),
    );
    if let Some(v) = ctx.variable {
        e = e.with_variable(v);
    }
    e.index = Some(written);
    e.bound = Some(extent as i64);
    e.dim = Some(dim as u32);
    e
}

/// The 0-based position a written index names, not yet bounds-checked.
fn position_of(ctx: &IndexCtx, written: i64, extent: usize) -> i128 {
    if ctx.flags.negative && written < 0 {
        written as i128 + extent as i128
    } else {
        written as i128 - ctx.base as i128
    }
}

/// A checked position on an axis of extent `extent` (index number `dim`).
fn checked_position(ctx: &IndexCtx, written: i64, extent: usize, dim: usize) -> VrResult<usize> {
    let p = position_of(ctx, written, extent);
    if p < 0 || p >= extent as i128 {
        return Err(out_of_bounds(ctx, written, extent, dim));
    }
    Ok(p as usize)
}

/// Positions a written index selects on one axis.
fn resolve(ctx: &IndexCtx, w: &Written, extent: usize, dim: usize) -> VrResult<Sel> {
    match w {
        Written::Scalar(i) => Ok(Sel::One(checked_position(ctx, *i, extent, dim)?)),
        Written::Range { start, stop, step } => {
            let s = *step;
            if s == 0 {
                return Err(VrError::runtime("zero step in a range index"));
            }
            let last = extent as i128 - 1;
            let p0 = match start {
                Some(i) => position_of(ctx, *i, extent),
                None if s > 0 => 0,
                None => last,
            };
            let p1 = match stop {
                Some(i) => position_of(ctx, *i, extent),
                None if s > 0 => last,
                None => 0,
            };
            let s128 = s as i128;
            let count: i128 = if s > 0 && p1 >= p0 {
                (p1 - p0) / s128 + 1
            } else if s < 0 && p1 <= p0 {
                (p0 - p1) / -s128 + 1
            } else {
                0
            };
            if count == 0 {
                return Ok(Sel::Many {
                    positions: Vec::new(),
                    range: Some((0, s as isize)),
                });
            }
            if p0 < 0 || p0 > last {
                return Err(out_of_bounds(ctx, start.unwrap_or(ctx.base), extent, dim));
            }
            let pn = p0 + (count - 1) * s128;
            if pn < 0 || pn > last {
                let written = stop.unwrap_or(extent as i64 - 1 + ctx.base);
                return Err(out_of_bounds(ctx, written, extent, dim));
            }
            // Within the extent, so the count fits in memory-sized integers; the list is
            // reserved fallibly (a huge axis of an otherwise empty array).
            let mut positions = Vec::new();
            positions.try_reserve_exact(count as usize).map_err(|_| {
                VrError::runtime(format!("range index of {count} positions is too large"))
            })?;
            positions.extend((0..count).map(|k| (p0 + k * s128) as usize));
            Ok(Sel::Many {
                positions,
                range: Some((p0 as usize, s as isize)),
            })
        }
        Written::Gather(items) => {
            let positions = items
                .iter()
                .map(|&i| checked_position(ctx, i, extent, dim))
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Sel::Many {
                positions,
                range: None,
            })
        }
        Written::Mask(mask) => {
            if mask.len() != extent {
                let mut e = VrError::new(
                    ErrorKind::ShapeMismatch,
                    format!(
                        "{}: mask of length {} for dimension {dim} of extent {extent}",
                        ctx.variable.unwrap_or("array"),
                        mask.len()
                    ),
                );
                if let Some(v) = ctx.variable {
                    e = e.with_variable(v);
                }
                e.bound = Some(extent as i64);
                e.dim = Some(dim as u32);
                return Err(e);
            }
            let positions = mask
                .iter()
                .enumerate()
                .filter(|(_, &b)| b)
                .map(|(p, _)| p)
                .collect();
            Ok(Sel::Many {
                positions,
                range: None,
            })
        }
    }
}

/// The elements an indexing selects: the result's dims (one per non-scalar index) and
/// the buffer positions in the result's logical order.
struct Selection {
    dims: Vec<usize>,
    positions: Vec<usize>,
}

fn resolve_all(a: &Array, indices: &[Written], ctx: &IndexCtx) -> VrResult<(Vec<Axis>, Vec<Sel>)> {
    let axes = axes(a, indices.len(), ctx.flags)?;
    let mut sels = Vec::with_capacity(axes.len());
    for (k, axis) in axes.iter().enumerate() {
        let w = indices.get(k).unwrap_or(&Written::FULL);
        let sel = resolve(ctx, w, axis.extent, k).map_err(|e| with_access(e, ctx, indices))?;
        sels.push(sel);
    }
    Ok((axes, sels))
}

/// Prefix an out-of-bounds message with the access as written.
fn with_access(mut e: VrError, ctx: &IndexCtx, indices: &[Written]) -> VrError {
    if e.kind == ErrorKind::OutOfBounds {
        e.message = format!(
            "{}[{}]: {}",
            ctx.variable.unwrap_or("array"),
            show_indices(indices),
            e.message
        );
    }
    e
}

/// The buffer position of an element named by one scalar index per dimension: the
/// common case, computed without building a selection. None when not that case.
fn element_fast(a: &Array, indices: &[Written], ctx: &IndexCtx) -> Option<VrResult<usize>> {
    if indices.len() != a.ndims() {
        return None;
    }
    let mut pos = a.offset as isize;
    for (k, w) in indices.iter().enumerate() {
        let Written::Scalar(i) = w else { return None };
        match checked_position(ctx, *i, a.dims[k], k) {
            Ok(p) => pos += p as isize * a.strides[k],
            Err(e) => return Some(Err(with_access(e, ctx, indices))),
        }
    }
    Some(Ok(pos as usize))
}

/// Indices as the program wrote them, for messages: `2`, `1:5:2` (`_` for an absent
/// endpoint), `[4, 0]` for a gather, `mask` for a mask.
fn show_indices(indices: &[Written]) -> String {
    let end = |x: &Option<i64>| x.map_or("_".to_string(), |v| v.to_string());
    let items: Vec<String> = indices
        .iter()
        .map(|w| match w {
            Written::Scalar(i) => i.to_string(),
            Written::Range {
                start,
                stop,
                step: 1,
            } => format!("{}:{}", end(start), end(stop)),
            Written::Range { start, stop, step } => format!("{}:{}:{step}", end(start), end(stop)),
            Written::Gather(items) if items.len() <= 8 => {
                format!(
                    "[{}]",
                    items
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            Written::Gather(items) => format!("[{} indices]", items.len()),
            Written::Mask(_) => "mask".to_string(),
        })
        .collect();
    items.join(", ")
}

fn select(a: &Array, indices: &[Written], ctx: &IndexCtx) -> VrResult<Selection> {
    let (axes, sels) = resolve_all(a, indices, ctx)?;
    let mut dims = Vec::new();
    let mut base = a.offset as isize;
    // For each non-scalar axis: the buffer offsets of its selected positions.
    let mut many: Vec<Vec<isize>> = Vec::new();
    for (axis, sel) in axes.iter().zip(&sels) {
        match sel {
            Sel::One(p) => base += axis.offset(*p),
            Sel::Many { positions, .. } => {
                dims.push(positions.len());
                many.push(positions.iter().map(|&p| axis.offset(p)).collect());
            }
        }
    }
    // Repeated gathers can select far more elements than the array has: reserve
    // fallibly, so that a selection too large for memory is an error, not an abort.
    let count = super::array_ops::element_count(&dims)?;
    let mut positions = Vec::new();
    positions
        .try_reserve_exact(count)
        .map_err(|_| VrError::runtime(format!("a selection of {count} elements is too large")))?;
    // With no non-scalar index, `MultiIndex` yields the one empty index: the element.
    positions.extend(MultiIndex::new(&dims).map(|idx| {
        idx.iter()
            .zip(&many)
            .fold(base, |acc, (&i, offs)| acc + offs[i]) as usize
    }));
    Ok(Selection { dims, positions })
}

/// `(index A i...)`: an element, a new array, or (with `:view`) a strided view.
pub(crate) fn read(a: &Array, indices: &[Written], ctx: &IndexCtx) -> VrResult<Value> {
    if let Some(p) = element_fast(a, indices, ctx) {
        let p = p?;
        let buf = a.data.borrow();
        return if p < buf.len() {
            Ok(Value::Scalar(buf.get(p)))
        } else {
            Err(internal(format!(
                "position {p} outside a buffer of {}",
                buf.len()
            )))
        };
    }
    if ctx.flags.view {
        return view(a, indices, ctx);
    }
    let sel = select(a, indices, ctx)?;
    let buf = a.data.borrow();
    let get = |p: usize| {
        if p < buf.len() {
            Ok(buf.get(p))
        } else {
            Err(internal(format!(
                "position {p} outside a buffer of {}",
                buf.len()
            )))
        }
    };
    if sel.dims.is_empty() {
        return Ok(Value::Scalar(get(sel.positions[0])?));
    }
    let elems = sel
        .positions
        .iter()
        .map(|&p| get(p))
        .collect::<VrResult<Vec<Scalar>>>()?;
    drop(buf);
    Ok(Value::Array(from_logical(
        a.ty.elem,
        fresh_layout(a.ty.layout),
        sel.dims,
        &elems,
    )?))
}

/// A `:view` read: shares `a`'s buffer, layout `strided`.
fn view(a: &Array, indices: &[Written], ctx: &IndexCtx) -> VrResult<Value> {
    let (axes, sels) = resolve_all(a, indices, ctx)?;
    let mut offset = a.offset as isize;
    let mut dims = Vec::new();
    let mut strides = Vec::new();
    for (axis, sel) in axes.iter().zip(&sels) {
        let stride = match axis.parts.as_slice() {
            [(_, s)] => *s,
            _ => return Err(internal("a :view cannot flatten dimensions")),
        };
        match sel {
            Sel::One(p) => offset += *p as isize * stride,
            Sel::Many {
                positions,
                range: Some((first, step)),
            } => {
                if !positions.is_empty() {
                    offset += *first as isize * stride;
                }
                dims.push(positions.len());
                strides.push(step * stride);
            }
            Sel::Many { range: None, .. } => {
                return Err(internal("a :view with a gather or mask index"))
            }
        }
    }
    if offset < 0 {
        return Err(internal("view offset before the buffer start"));
    }
    if dims.is_empty() {
        let buf = a.data.borrow();
        let p = offset as usize;
        return if p < buf.len() {
            Ok(Value::Scalar(buf.get(p)))
        } else {
            Err(internal("view outside its buffer"))
        };
    }
    Ok(Value::Array(Array {
        ty: ArrayType::new(a.ty.elem, dims.len() as u32, Layout::Strided),
        dims,
        strides,
        offset: offset as usize,
        data: a.data.clone(),
    }))
}

/// `(set (index A i...) v)`: store a scalar at every selected position, or an array of
/// the selection's shape element by element (read completely before the first store).
pub(crate) fn write(a: &Array, indices: &[Written], ctx: &IndexCtx, v: &Value) -> VrResult<()> {
    if let (Some(p), Value::Scalar(x)) = (element_fast(a, indices, ctx), v) {
        return store(&mut a.data.borrow_mut(), p?, *x);
    }
    let sel = select(a, indices, ctx)?;
    let values: Vec<Scalar> = match v {
        Value::Scalar(s) => vec![*s; sel.positions.len()],
        Value::Array(src) => {
            if src.dims != sel.dims {
                let mut e = VrError::new(
                    ErrorKind::ShapeMismatch,
                    format!(
                        "{}: assigning an array of shape {:?} to a selection of shape {:?}",
                        ctx.variable.unwrap_or("array"),
                        src.dims,
                        sel.dims
                    ),
                );
                if let Some(name) = ctx.variable {
                    e = e.with_variable(name);
                }
                return Err(e);
            }
            src.elements()
        }
        other => {
            return Err(internal(format!(
                "storing a {} into an array",
                super::describe(other)
            )))
        }
    };
    let mut buf = a.data.borrow_mut();
    for (&p, &x) in sel.positions.iter().zip(&values) {
        store(&mut buf, p, x)?;
    }
    Ok(())
}

/// Buffer position of one element named by a full set of scalar indices (atomics).
pub(crate) fn element_position(a: &Array, indices: &[Written], ctx: &IndexCtx) -> VrResult<usize> {
    if indices.len() != a.ndims() || !indices.iter().all(|w| matches!(w, Written::Scalar(_))) {
        return Err(internal("an atomic needs one scalar index per dimension"));
    }
    let sel = select(a, indices, ctx)?;
    match sel.positions.as_slice() {
        [p] if sel.dims.is_empty() => Ok(*p),
        _ => Err(internal("an atomic addresses one element")),
    }
}
