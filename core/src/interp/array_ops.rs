//! Whole-array operations: building arrays, element-wise application with scalar
//! broadcasting, reductions, matmul and transpose. Elements are always visited in
//! logical order (first index slowest) unless the semantics name storage order.

use super::{arith, internal};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{contiguous_strides, Array, Buffer, MultiIndex, Scalar, Value};
use crate::vrir::ast::{Accum, BinOp, ReduceOp, ScanOp};
use crate::vrir::types::{ArrayType, Layout, ScalarType};
use std::cell::RefCell;
use std::rc::Rc;

/// The layout of a freshly computed array derived from an operand of layout `l`.
pub(crate) fn fresh_layout(l: Layout) -> Layout {
    if l == Layout::Strided {
        Layout::Row
    } else {
        l
    }
}

/// Number of elements of `dims`, or an error when it does not fit in memory.
/// The extents taken as at least 1 must multiply without overflow too, since strides
/// of contiguous arrays are computed that way (an array of 0 x 2^40 x 2^40 is refused).
pub(crate) fn element_count(dims: &[usize]) -> VrResult<usize> {
    const LIMIT: usize = isize::MAX as usize / 16;
    let too_large = || VrError::runtime(format!("array of dimensions {dims:?} is too large"));
    let span = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d.max(1)))
        .filter(|&n| n <= LIMIT);
    span.ok_or_else(too_large)?;
    Ok(dims.iter().product())
}

/// A new contiguous array of type `ty`, every element `fill`. A `strided` array is
/// stored row-major. Fails (instead of aborting) when memory cannot be had.
pub(crate) fn new_array(ty: ArrayType, dims: Vec<usize>, fill: Scalar) -> VrResult<Array> {
    if fill.ty() != ty.elem {
        return Err(internal(format!(
            "{} fill for an array of {}",
            fill.ty(),
            ty.elem
        )));
    }
    if dims.len() != ty.ndims as usize {
        return Err(internal(format!(
            "{} dims for an array of rank {}",
            dims.len(),
            ty.ndims
        )));
    }
    let n = element_count(&dims)?;
    fn vec_of<T: Clone>(n: usize, x: T) -> VrResult<Vec<T>> {
        let mut v = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| VrError::runtime(format!("cannot allocate an array of {n} elements")))?;
        v.resize(n, x);
        Ok(v)
    }
    let buffer = match fill {
        Scalar::Bool(x) => Buffer::Bool(vec_of(n, x)?),
        Scalar::I32(x) => Buffer::I32(vec_of(n, x)?),
        Scalar::I64(x) => Buffer::I64(vec_of(n, x)?),
        Scalar::F32(x) => Buffer::F32(vec_of(n, x)?),
        Scalar::F64(x) => Buffer::F64(vec_of(n, x)?),
        Scalar::C64(x) => Buffer::C64(vec_of(n, x)?),
        Scalar::C128(x) => Buffer::C128(vec_of(n, x)?),
    };
    let strides = contiguous_strides(&dims, fresh_layout(ty.layout));
    Ok(Array {
        ty,
        dims,
        strides,
        offset: 0,
        data: Rc::new(RefCell::new(buffer)),
    })
}

/// Store `v` at buffer position `pos`, checking the element type (a mismatch is an
/// interpreter bug, reported instead of panicking).
pub(crate) fn store(buf: &mut Buffer, pos: usize, v: Scalar) -> VrResult<()> {
    if v.ty() != buf.elem() || pos >= buf.len() {
        return Err(internal(format!(
            "storing {} at {pos} into a buffer of {} {}",
            v.ty(),
            buf.len(),
            buf.elem()
        )));
    }
    buf.set(pos, v);
    Ok(())
}

/// A new array of element type `elem` and layout `layout` from elements in logical order.
pub(crate) fn from_logical(
    elem: ScalarType,
    layout: Layout,
    dims: Vec<usize>,
    elems: &[Scalar],
) -> VrResult<Array> {
    let ty = ArrayType::new(elem, dims.len() as u32, layout);
    let a = new_array(ty, dims, Scalar::zero(elem))?;
    if elems.len() != a.len() {
        return Err(internal(format!(
            "{} elements for an array of {}",
            elems.len(),
            a.len()
        )));
    }
    {
        let mut buf = a.data.borrow_mut();
        for (idx, &v) in a.indices().zip(elems) {
            store(&mut buf, a.position(&idx), v)?;
        }
    }
    Ok(a)
}

/// A fresh copy of `a` typed with `layout` (`strided` is stored row-major).
pub(crate) fn copy_array(a: &Array, layout: Layout) -> VrResult<Array> {
    from_logical(a.ty.elem, layout, a.dims.clone(), &a.elements())
}

/// Apply `f` to every element of an array (or to a scalar); the result has element
/// type `out` and the operand's layout (`strided` becoming `row`).
pub(crate) fn map1(
    v: &Value,
    out: ScalarType,
    mut f: impl FnMut(Scalar) -> VrResult<Scalar>,
) -> VrResult<Value> {
    match v {
        Value::Scalar(s) => Ok(Value::Scalar(f(*s)?)),
        Value::Array(a) => {
            let elems = a
                .elements()
                .into_iter()
                .map(&mut f)
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Value::Array(from_logical(
                out,
                fresh_layout(a.ty.layout),
                a.dims.clone(),
                &elems,
            )?))
        }
        other => Err(internal(format!(
            "element-wise operation on {}",
            super::describe(other)
        ))),
    }
}

/// Apply `f` element-wise to two operands, broadcasting a scalar; arrays must have equal
/// dims. The result takes the first array operand's layout (`strided` becoming `row`).
pub(crate) fn map2(
    a: &Value,
    b: &Value,
    out: ScalarType,
    mut f: impl FnMut(Scalar, Scalar) -> VrResult<Scalar>,
) -> VrResult<Value> {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => Ok(Value::Scalar(f(*x, *y)?)),
        (Value::Array(x), Value::Scalar(y)) => {
            let elems = x
                .elements()
                .into_iter()
                .map(|e| f(e, *y))
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Value::Array(from_logical(
                out,
                fresh_layout(x.ty.layout),
                x.dims.clone(),
                &elems,
            )?))
        }
        (Value::Scalar(x), Value::Array(y)) => {
            let elems = y
                .elements()
                .into_iter()
                .map(|e| f(*x, e))
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Value::Array(from_logical(
                out,
                fresh_layout(y.ty.layout),
                y.dims.clone(),
                &elems,
            )?))
        }
        (Value::Array(x), Value::Array(y)) => {
            check_same_shape(&x.dims, &y.dims)?;
            let elems = x
                .elements()
                .into_iter()
                .zip(y.elements())
                .map(|(p, q)| f(p, q))
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Value::Array(from_logical(
                out,
                fresh_layout(x.ty.layout),
                x.dims.clone(),
                &elems,
            )?))
        }
        (x, y) => Err(internal(format!(
            "element-wise operation on {} and {}",
            super::describe(x),
            super::describe(y)
        ))),
    }
}

pub(crate) fn check_same_shape(a: &[usize], b: &[usize]) -> VrResult<()> {
    if a != b {
        return Err(VrError::new(
            ErrorKind::ShapeMismatch,
            format!("operands of shapes {a:?} and {b:?}"),
        ));
    }
    Ok(())
}

/// Element type of a value (scalar or array).
pub(crate) fn elem_type(v: &Value) -> VrResult<ScalarType> {
    match v {
        Value::Scalar(s) => Ok(s.ty()),
        Value::Array(a) => Ok(a.ty.elem),
        other => Err(internal(format!(
            "expected a scalar or an array, got {}",
            super::describe(other)
        ))),
    }
}

/// Multi-indices of `dims` in storage order of `layout`: column-major visits the first
/// index fastest, row-major and strided the last.
fn storage_order(dims: &[usize], layout: Layout) -> Vec<Vec<usize>> {
    if layout == Layout::Col {
        let rev: Vec<usize> = dims.iter().rev().copied().collect();
        MultiIndex::new(&rev)
            .map(|mut i| {
                i.reverse();
                i
            })
            .collect()
    } else {
        MultiIndex::new(dims).collect()
    }
}

/// Fold `xs` with reduction `op`, from 0 (`sum`), 1 (`prod`) or the first element
/// (`amin`/`amax`, where no elements is an error).
fn fold(op: ReduceOp, elem: ScalarType, xs: impl Iterator<Item = Scalar>) -> VrResult<Scalar> {
    use crate::vrir::ast::LibFn;
    match op {
        ReduceOp::Sum => xs.into_iter().try_fold(Scalar::zero(elem), |acc, x| {
            arith::binop(BinOp::Add, acc, x)
        }),
        ReduceOp::Prod => xs
            .into_iter()
            .try_fold(Scalar::one(elem), |acc, x| arith::binop(BinOp::Mul, acc, x)),
        ReduceOp::Mean | ReduceOp::MeanRefined => Err(internal(format!(
            "{} folded without its definition",
            op.name()
        ))),
        ReduceOp::Min | ReduceOp::Max => {
            let f = if op == ReduceOp::Min {
                LibFn::Min
            } else {
                LibFn::Max
            };
            let mut xs = xs.into_iter();
            let first = xs.next().ok_or_else(|| {
                VrError::runtime(format!(
                    "empty reduction: {} of an array with no elements",
                    op.name()
                ))
            })?;
            xs.try_fold(first, |acc, x| arith::lib2(f, acc, x))
        }
    }
}

/// One reduction's result from the elements it folds, in order. `whole`: the reduction
/// covers the whole array (the rounding of a whole-array `:acc f80` sum differs).
fn lane(
    op: ReduceOp,
    elem: ScalarType,
    acc: Option<Accum>,
    xs: impl Iterator<Item = Scalar>,
    whole: bool,
) -> VrResult<Scalar> {
    if acc.is_none() && !op.is_mean() {
        return fold(op, elem, xs);
    }
    if elem.is_complex() {
        return complex_lane(op, elem, acc, xs);
    }
    let xs = floats(xs)?;
    let v = match (op, acc) {
        (ReduceOp::Mean, _) => super::extended::mean(&xs, elem, acc),
        (ReduceOp::MeanRefined, _) => super::extended::mean_refined(&xs, elem, acc),
        (_, Some(acc)) => super::extended::sum_prod(op, &xs, acc, whole),
        (_, None) => return Err(internal(format!("{} without an accumulator", op.name()))),
    };
    Ok(if elem == ScalarType::F32 {
        Scalar::F32(v as f32)
    } else {
        Scalar::F64(v)
    })
}

/// `lane` for complex elements.
fn complex_lane(
    op: ReduceOp,
    elem: ScalarType,
    acc: Option<Accum>,
    xs: impl Iterator<Item = Scalar>,
) -> VrResult<Scalar> {
    use super::extended as ext;
    let xs: Vec<ext::Parts> = xs
        .map(|x| match x {
            Scalar::C128(c) => Ok((c.re, c.im)),
            Scalar::C64(c) => Ok((c.re as f64, c.im as f64)),
            other => Err(internal(format!("a complex reduction of {}", other.ty()))),
        })
        .collect::<VrResult<_>>()?;
    let (re, im) = match (op, acc) {
        (ReduceOp::Mean, _) => ext::mean_complex(&xs, elem, acc),
        (ReduceOp::MeanRefined, _) => ext::mean_refined_complex(&xs, elem, acc),
        (ReduceOp::Sum, Some(acc)) => ext::sum_complex(&xs, acc),
        (ReduceOp::Prod, Some(acc)) => ext::prod_complex(&xs, acc),
        _ => return Err(internal(format!("complex {} with {acc:?}", op.name()))),
    };
    Ok(if elem == ScalarType::C64 {
        Scalar::C64(num_complex::Complex32::new(re as f32, im as f32))
    } else {
        Scalar::C128(num_complex::Complex64::new(re, im))
    })
}

/// Float elements as f64 (exact for f32).
fn floats(xs: impl Iterator<Item = Scalar>) -> VrResult<Vec<f64>> {
    xs.map(|x| match x {
        Scalar::F64(v) => Ok(v),
        Scalar::F32(v) => Ok(v as f64),
        other => Err(internal(format!("a float reduction of {}", other.ty()))),
    })
    .collect()
}

/// `sum prod amin amax mean mean-refined`, over everything (storage order) or along one
/// axis, accumulating in `acc` when given.
pub(crate) fn reduce(
    op: ReduceOp,
    v: &Value,
    axis: Option<u32>,
    acc: Option<Accum>,
) -> VrResult<Value> {
    let a = match v {
        Value::Array(a) => a,
        // A scalar operand (not produced by verified code) reduces to itself.
        Value::Scalar(s) => {
            return Ok(Value::Scalar(lane(
                op,
                s.ty(),
                acc,
                std::iter::once(*s),
                true,
            )?))
        }
        other => {
            return Err(internal(format!(
                "{} of {}",
                op.name(),
                super::describe(other)
            )))
        }
    };
    let elem = a.ty.elem;
    let k = match axis {
        None => {
            let order = storage_order(&a.dims, a.ty.layout);
            return Ok(Value::Scalar(lane(
                op,
                elem,
                acc,
                order.iter().map(|i| a.get(i)),
                true,
            )?));
        }
        Some(k) if (k as usize) < a.ndims() => k as usize,
        Some(k) => {
            return Err(internal(format!(
                "reduction axis {k} of an array of rank {}",
                a.ndims()
            )))
        }
    };
    if a.ndims() == 1 {
        return Ok(Value::Scalar(lane(
            op,
            elem,
            acc,
            (0..a.dims[0]).map(|i| a.get(&[i])),
            false,
        )?));
    }
    let mut out_dims = a.dims.clone();
    out_dims.remove(k);
    let mut elems = Vec::new();
    for out_idx in MultiIndex::new(&out_dims) {
        let along = (0..a.dims[k]).map(|i| {
            let mut idx = out_idx.clone();
            idx.insert(k, i);
            a.get(&idx)
        });
        elems.push(lane(op, elem, acc, along, false)?);
    }
    Ok(Value::Array(from_logical(
        elem,
        fresh_layout(a.ty.layout),
        out_dims,
        &elems,
    )?))
}

/// `cumsum`/`cumprod` of a vector: element k accumulates elements 0..=k, in `acc` when
/// given (each running value rounded to the element type), else in the element type
/// (integers wrap).
pub(crate) fn scan(op: ScanOp, v: &Value, acc: Option<Accum>) -> VrResult<Value> {
    let a = as_array(v, op.name())?;
    if a.ndims() != 1 {
        return Err(internal(format!(
            "{} of an array of rank {}",
            op.name(),
            a.ndims()
        )));
    }
    let elem = a.ty.elem;
    let xs = (0..a.dims[0]).map(|i| a.get(&[i]));
    let out: Vec<Scalar> = match acc {
        Some(acc) => super::extended::scan(op, &floats(xs)?, acc)
            .into_iter()
            .map(Scalar::F64)
            .collect(),
        None => {
            let (mut s, step) = match op {
                ScanOp::Sum => (Scalar::zero(elem), BinOp::Add),
                ScanOp::Prod => (Scalar::one(elem), BinOp::Mul),
            };
            let mut out = Vec::with_capacity(a.dims[0]);
            for x in xs {
                s = arith::binop(step, s, x)?;
                out.push(s);
            }
            out
        }
    };
    Ok(Value::Array(from_logical(
        elem,
        fresh_layout(a.ty.layout),
        vec![a.dims[0]],
        &out,
    )?))
}

/// `transpose`: 1-D arrays are copied, 2-D arrays swap their dimensions.
pub(crate) fn transpose(v: &Value) -> VrResult<Value> {
    let a = as_array(v, "transpose")?;
    let layout = fresh_layout(a.ty.layout);
    match a.ndims() {
        1 => Ok(Value::Array(copy_array(a, layout)?)),
        2 => {
            let (m, n) = (a.dims[0], a.dims[1]);
            let mut elems = Vec::with_capacity(m * n);
            for j in 0..n {
                for i in 0..m {
                    elems.push(a.get(&[i, j]));
                }
            }
            Ok(Value::Array(from_logical(
                a.ty.elem,
                layout,
                vec![n, m],
                &elems,
            )?))
        }
        r => Err(internal(format!("transpose of an array of rank {r}"))),
    }
}

pub(crate) fn as_array<'v>(v: &'v Value, what: &str) -> VrResult<&'v Array> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err(internal(format!("{what} of {}", super::describe(other)))),
    }
}

/// Sum of products a(i) * b(i) for i = 0..k, accumulated from zero upwards.
fn dot(
    elem: ScalarType,
    k: usize,
    a: impl Fn(usize) -> Scalar,
    b: impl Fn(usize) -> Scalar,
) -> VrResult<Scalar> {
    let mut acc = Scalar::zero(elem);
    for i in 0..k {
        acc = arith::binop(BinOp::Add, acc, arith::binop(BinOp::Mul, a(i), b(i))?)?;
    }
    Ok(acc)
}

/// `matmul` for every rank combination of 1-D and 2-D operands.
pub(crate) fn matmul(x: &Value, y: &Value) -> VrResult<Value> {
    let (a, b) = (as_array(x, "matmul")?, as_array(y, "matmul")?);
    if a.ty.elem != b.ty.elem || !a.ty.elem.is_numeric() {
        return Err(internal(format!("matmul of {} and {}", a.ty, b.ty)));
    }
    let elem = a.ty.elem;
    let inner = |ka: usize, kb: usize| -> VrResult<()> {
        if ka != kb {
            return Err(VrError::new(
                ErrorKind::ShapeMismatch,
                format!(
                    "matmul of shapes {:?} and {:?}: inner extents {ka} and {kb} differ",
                    a.dims, b.dims
                ),
            ));
        }
        Ok(())
    };
    match (a.ndims(), b.ndims()) {
        (1, 1) => {
            inner(a.dims[0], b.dims[0])?;
            Ok(Value::Scalar(dot(
                elem,
                a.dims[0],
                |i| a.get(&[i]),
                |i| b.get(&[i]),
            )?))
        }
        (2, 1) => {
            inner(a.dims[1], b.dims[0])?;
            let elems = (0..a.dims[0])
                .map(|r| dot(elem, a.dims[1], |i| a.get(&[r, i]), |i| b.get(&[i])))
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Value::Array(from_logical(
                elem,
                fresh_layout(a.ty.layout),
                vec![a.dims[0]],
                &elems,
            )?))
        }
        (1, 2) => {
            inner(a.dims[0], b.dims[0])?;
            let elems = (0..b.dims[1])
                .map(|c| dot(elem, a.dims[0], |i| a.get(&[i]), |i| b.get(&[i, c])))
                .collect::<VrResult<Vec<_>>>()?;
            Ok(Value::Array(from_logical(
                elem,
                fresh_layout(b.ty.layout),
                vec![b.dims[1]],
                &elems,
            )?))
        }
        (2, 2) => {
            inner(a.dims[1], b.dims[0])?;
            let (m, n, k) = (a.dims[0], b.dims[1], a.dims[1]);
            let mut elems = Vec::with_capacity(element_count(&[m, n])?);
            for r in 0..m {
                for c in 0..n {
                    elems.push(dot(elem, k, |i| a.get(&[r, i]), |i| b.get(&[i, c]))?);
                }
            }
            Ok(Value::Array(from_logical(
                elem,
                fresh_layout(a.ty.layout),
                vec![m, n],
                &elems,
            )?))
        }
        (p, q) => Err(internal(format!("matmul of ranks {p} and {q}"))),
    }
}

/// Element-wise cast of an array to `to` (a new array, which also takes `to`'s layout).
pub(crate) fn cast_array(a: &Array, to: ArrayType) -> VrResult<Array> {
    if a.ndims() != to.ndims as usize {
        return Err(internal(format!("cast of {} to {to}", a.ty)));
    }
    let elems = a
        .elements()
        .into_iter()
        .map(|e| arith::cast(e, to.elem))
        .collect::<VrResult<Vec<_>>>()?;
    from_logical(to.elem, to.layout, a.dims.clone(), &elems)
}
