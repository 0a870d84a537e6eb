//! Run-time values as every backend hands them in and out: scalars, arrays over shared
//! typed buffers (so that views alias), ranges, domains and tuples; and their JSON form
//! (`{"dtype":"f64","shape":[2,3],"data":[[..],[..]]}`, data nested in logical index order
//! whatever the layout).

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};
use num_complex::{Complex32, Complex64};
use serde_json::{json, Value as Json};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    C64(Complex32),
    C128(Complex64),
}

impl Scalar {
    pub fn ty(&self) -> ScalarType {
        match self {
            Scalar::Bool(_) => ScalarType::Bool,
            Scalar::I32(_) => ScalarType::I32,
            Scalar::I64(_) => ScalarType::I64,
            Scalar::F32(_) => ScalarType::F32,
            Scalar::F64(_) => ScalarType::F64,
            Scalar::C64(_) => ScalarType::C64,
            Scalar::C128(_) => ScalarType::C128,
        }
    }
    pub fn zero(t: ScalarType) -> Scalar {
        match t {
            ScalarType::Bool => Scalar::Bool(false),
            ScalarType::I32 => Scalar::I32(0),
            ScalarType::I64 => Scalar::I64(0),
            ScalarType::F32 => Scalar::F32(0.0),
            ScalarType::F64 => Scalar::F64(0.0),
            ScalarType::C64 => Scalar::C64(Complex32::new(0.0, 0.0)),
            ScalarType::C128 => Scalar::C128(Complex64::new(0.0, 0.0)),
        }
    }
    pub fn one(t: ScalarType) -> Scalar {
        match t {
            ScalarType::Bool => Scalar::Bool(true),
            ScalarType::I32 => Scalar::I32(1),
            ScalarType::I64 => Scalar::I64(1),
            ScalarType::F32 => Scalar::F32(1.0),
            ScalarType::F64 => Scalar::F64(1.0),
            ScalarType::C64 => Scalar::C64(Complex32::new(1.0, 0.0)),
            ScalarType::C128 => Scalar::C128(Complex64::new(1.0, 0.0)),
        }
    }
    /// Integer value of an integer scalar (bool counts as 0/1).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Scalar::Bool(b) => Some(b as i64),
            Scalar::I32(v) => Some(v as i64),
            Scalar::I64(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }
    }
    /// Real value as f64 (integers and floats; bool as 0/1).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Scalar::Bool(b) => Some(b as i64 as f64),
            Scalar::I32(v) => Some(v as f64),
            Scalar::I64(v) => Some(v as f64),
            Scalar::F32(v) => Some(v as f64),
            Scalar::F64(v) => Some(v),
            _ => None,
        }
    }

    /// Equality for tests: exact, except that NaN equals NaN (and 0.0 equals -0.0).
    pub fn same(&self, other: &Scalar) -> bool {
        fn feq(a: f64, b: f64) -> bool {
            a == b || (a.is_nan() && b.is_nan())
        }
        match (self, other) {
            (Scalar::F32(a), Scalar::F32(b)) => feq(*a as f64, *b as f64),
            (Scalar::F64(a), Scalar::F64(b)) => feq(*a, *b),
            (Scalar::C64(a), Scalar::C64(b)) => feq(a.re as f64, b.re as f64) && feq(a.im as f64, b.im as f64),
            (Scalar::C128(a), Scalar::C128(b)) => feq(a.re, b.re) && feq(a.im, b.im),
            (a, b) => a == b,
        }
    }

    pub fn to_json(&self) -> Json {
        match *self {
            Scalar::Bool(b) => Json::Bool(b),
            Scalar::I32(v) => json!(v),
            Scalar::I64(v) => json!(v),
            Scalar::F32(v) => f32_json(v),
            Scalar::F64(v) => f64_json(v),
            Scalar::C64(c) => json!({"re": f32_json(c.re), "im": f32_json(c.im)}),
            Scalar::C128(c) => json!({"re": f64_json(c.re), "im": f64_json(c.im)}),
        }
    }

    /// Read a scalar of type `t` from JSON: numbers, booleans, "nan"/"inf"/"-inf",
    /// and `{"re":x,"im":y}` for complex. Integers must be exact and in range.
    pub fn from_json(j: &Json, t: ScalarType) -> VrResult<Scalar> {
        let bad = || VrError::new(ErrorKind::InvalidArgument, format!("cannot read {j} as {t}"));
        Ok(match t {
            ScalarType::Bool => Scalar::Bool(j.as_bool().ok_or_else(bad)?),
            ScalarType::I32 => Scalar::I32(j.as_i64().and_then(|v| i32::try_from(v).ok()).ok_or_else(bad)?),
            ScalarType::I64 => Scalar::I64(j.as_i64().ok_or_else(bad)?),
            ScalarType::F32 => Scalar::F32(json_float(j).ok_or_else(bad)? as f32),
            ScalarType::F64 => Scalar::F64(json_float(j).ok_or_else(bad)?),
            ScalarType::C64 | ScalarType::C128 => {
                let (re, im) = match j {
                    Json::Object(m) => (
                        m.get("re").and_then(json_float).ok_or_else(bad)?,
                        m.get("im").and_then(json_float).ok_or_else(bad)?,
                    ),
                    other => (json_float(other).ok_or_else(bad)?, 0.0),
                };
                if t == ScalarType::C64 {
                    Scalar::C64(Complex32::new(re as f32, im as f32))
                } else {
                    Scalar::C128(Complex64::new(re, im))
                }
            }
        })
    }
}

fn f64_json(v: f64) -> Json {
    if v.is_finite() {
        json!(v)
    } else if v.is_nan() {
        json!("nan")
    } else if v > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

fn f32_json(v: f32) -> Json {
    if v.is_finite() {
        // serde_json prints f32 in its own shortest round-trip form.
        serde_json::to_value(v).unwrap_or(Json::Null)
    } else {
        f64_json(v as f64)
    }
}

fn json_float(j: &Json) -> Option<f64> {
    match j {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => match s.as_str() {
            "nan" => Some(f64::NAN),
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// Contiguous typed storage of array elements.
#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    Bool(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    C64(Vec<Complex32>),
    C128(Vec<Complex64>),
}

impl Buffer {
    pub fn filled(t: ScalarType, n: usize, v: Scalar) -> Buffer {
        debug_assert_eq!(v.ty(), t);
        match v {
            Scalar::Bool(x) => Buffer::Bool(vec![x; n]),
            Scalar::I32(x) => Buffer::I32(vec![x; n]),
            Scalar::I64(x) => Buffer::I64(vec![x; n]),
            Scalar::F32(x) => Buffer::F32(vec![x; n]),
            Scalar::F64(x) => Buffer::F64(vec![x; n]),
            Scalar::C64(x) => Buffer::C64(vec![x; n]),
            Scalar::C128(x) => Buffer::C128(vec![x; n]),
        }
    }
    pub fn len(&self) -> usize {
        match self {
            Buffer::Bool(v) => v.len(),
            Buffer::I32(v) => v.len(),
            Buffer::I64(v) => v.len(),
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
            Buffer::C64(v) => v.len(),
            Buffer::C128(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> Scalar {
        match self {
            Buffer::Bool(v) => Scalar::Bool(v[i]),
            Buffer::I32(v) => Scalar::I32(v[i]),
            Buffer::I64(v) => Scalar::I64(v[i]),
            Buffer::F32(v) => Scalar::F32(v[i]),
            Buffer::F64(v) => Scalar::F64(v[i]),
            Buffer::C64(v) => Scalar::C64(v[i]),
            Buffer::C128(v) => Scalar::C128(v[i]),
        }
    }
    /// Store `s`, which must have the buffer's element type.
    pub fn set(&mut self, i: usize, s: Scalar) {
        match (self, s) {
            (Buffer::Bool(v), Scalar::Bool(x)) => v[i] = x,
            (Buffer::I32(v), Scalar::I32(x)) => v[i] = x,
            (Buffer::I64(v), Scalar::I64(x)) => v[i] = x,
            (Buffer::F32(v), Scalar::F32(x)) => v[i] = x,
            (Buffer::F64(v), Scalar::F64(x)) => v[i] = x,
            (Buffer::C64(v), Scalar::C64(x)) => v[i] = x,
            (Buffer::C128(v), Scalar::C128(x)) => v[i] = x,
            (b, s) => panic!("internal: storing {:?} into a {:?} buffer", s.ty(), b.elem()),
        }
    }
    pub fn elem(&self) -> ScalarType {
        match self {
            Buffer::Bool(_) => ScalarType::Bool,
            Buffer::I32(_) => ScalarType::I32,
            Buffer::I64(_) => ScalarType::I64,
            Buffer::F32(_) => ScalarType::F32,
            Buffer::F64(_) => ScalarType::F64,
            Buffer::C64(_) => ScalarType::C64,
            Buffer::C128(_) => ScalarType::C128,
        }
    }
}

/// An n-dimensional array: a window (offset, dims, strides in elements) onto a shared
/// buffer. Copies get their own buffer; views share it.
#[derive(Clone, Debug)]
pub struct Array {
    /// Element type, rank, and the layout this value is typed with.
    pub ty: ArrayType,
    pub dims: Vec<usize>,
    pub strides: Vec<isize>,
    pub offset: usize,
    pub data: Rc<RefCell<Buffer>>,
}

/// Strides of a contiguous array: column-major for `Col`, row-major otherwise.
pub fn contiguous_strides(dims: &[usize], layout: Layout) -> Vec<isize> {
    let n = dims.len();
    let mut strides = vec![0isize; n];
    let mut acc: isize = 1;
    if layout == Layout::Col {
        for k in 0..n {
            strides[k] = acc;
            acc *= dims[k].max(1) as isize;
        }
    } else {
        for k in (0..n).rev() {
            strides[k] = acc;
            acc *= dims[k].max(1) as isize;
        }
    }
    strides
}

impl Array {
    /// A new contiguous array, every element `fill`.
    pub fn filled(ty: ArrayType, dims: Vec<usize>, fill: Scalar) -> Array {
        debug_assert_eq!(dims.len(), ty.ndims as usize);
        let n = dims.iter().product();
        let strides = contiguous_strides(&dims, ty.layout);
        Array { ty, dims, strides, offset: 0, data: Rc::new(RefCell::new(Buffer::filled(ty.elem, n, fill))) }
    }
    pub fn zeros(ty: ArrayType, dims: Vec<usize>) -> Array {
        Array::filled(ty, dims, Scalar::zero(ty.elem))
    }
    /// A contiguous array from elements listed in logical order (last index fastest).
    pub fn from_logical(ty: ArrayType, dims: Vec<usize>, elems: &[Scalar]) -> Array {
        let a = Array::zeros(ty, dims);
        for (k, idx) in a.indices().enumerate() {
            a.set(&idx, elems[k]);
        }
        a
    }
    pub fn len(&self) -> usize {
        self.dims.iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn ndims(&self) -> usize {
        self.dims.len()
    }
    /// Buffer position of a 0-based multi-index (not bounds-checked here).
    pub fn position(&self, idx: &[usize]) -> usize {
        let mut p = self.offset as isize;
        for (i, s) in idx.iter().zip(&self.strides) {
            p += *i as isize * s;
        }
        p as usize
    }
    pub fn get(&self, idx: &[usize]) -> Scalar {
        self.data.borrow().get(self.position(idx))
    }
    pub fn set(&self, idx: &[usize], v: Scalar) {
        let p = self.position(idx);
        self.data.borrow_mut().set(p, v)
    }
    /// All 0-based multi-indices in logical order: first index slowest.
    pub fn indices(&self) -> MultiIndex {
        MultiIndex::new(&self.dims)
    }
    /// Elements in logical order.
    pub fn elements(&self) -> Vec<Scalar> {
        let data = self.data.borrow();
        self.indices().map(|idx| data.get(self.position(&idx))).collect()
    }
    /// A contiguous copy with its own buffer, in `layout` (strided becomes row-major).
    pub fn copy_as(&self, layout: Layout) -> Array {
        let ty = ArrayType { layout, ..self.ty };
        let store = if layout == Layout::Strided { Layout::Row } else { layout };
        let mut out = Array::zeros(ArrayType { layout: store, ..self.ty }, self.dims.clone());
        {
            let src = self.data.borrow();
            let mut dst = out.data.borrow_mut();
            for idx in self.indices() {
                dst.set(out.position(&idx), src.get(self.position(&idx)));
            }
        }
        out.ty = ty;
        out
    }
    /// Does this array share its buffer with `other`?
    pub fn shares_buffer(&self, other: &Array) -> bool {
        Rc::ptr_eq(&self.data, &other.data)
    }

    pub fn to_json(&self) -> Json {
        let elems = self.elements();
        let mut pos = 0;
        let data = nest(&elems, &self.dims, &mut pos);
        json!({"dtype": self.ty.elem.name(), "shape": self.dims, "data": data})
    }

    /// Read an array of type `ty` from JSON: either nested lists (shape from the
    /// nesting, outermost list = first index) or `{"dtype","shape","data"}`.
    pub fn from_json(j: &Json, ty: ArrayType) -> VrResult<Array> {
        let bad = |m: String| VrError::new(ErrorKind::InvalidArgument, m);
        let (data, shape) = match j {
            Json::Object(m) if m.contains_key("data") => {
                if let Some(dt) = m.get("dtype").and_then(|d| d.as_str()) {
                    if dt != ty.elem.name() {
                        return Err(bad(format!("expected dtype {} but got {dt}", ty.elem)));
                    }
                }
                let shape: Option<Vec<usize>> = m
                    .get("shape")
                    .and_then(|s| s.as_array())
                    .map(|s| s.iter().filter_map(|d| d.as_u64().map(|d| d as usize)).collect());
                (&m["data"], shape)
            }
            other => (other, None),
        };
        let mut flat = Vec::new();
        let mut dims: Vec<Option<usize>> = vec![None; ty.ndims as usize];
        flatten_json(data, 0, &mut dims, &mut flat, ty.elem)?;
        let mut dims: Vec<usize> = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
        if let Some(shape) = shape {
            if shape.len() != dims.len() || (shape.iter().product::<usize>() != flat.len()) {
                return Err(bad(format!("shape {shape:?} does not match data")));
            }
            dims = shape;
        }
        let store = if ty.layout == Layout::Strided { Layout::Row } else { ty.layout };
        let mut a = Array::from_logical(ArrayType { layout: store, ..ty }, dims, &flat);
        a.ty = ty;
        Ok(a)
    }
}

fn nest(elems: &[Scalar], dims: &[usize], pos: &mut usize) -> Json {
    match dims.split_first() {
        None => {
            let v = elems[*pos].to_json();
            *pos += 1;
            v
        }
        Some((d, rest)) => Json::Array((0..*d).map(|_| nest(elems, rest, pos)).collect()),
    }
}

fn flatten_json(j: &Json, depth: usize, dims: &mut Vec<Option<usize>>, out: &mut Vec<Scalar>, t: ScalarType) -> VrResult<()> {
    if depth == dims.len() {
        out.push(Scalar::from_json(j, t)?);
        return Ok(());
    }
    let list = j.as_array().ok_or_else(|| {
        VrError::new(ErrorKind::InvalidArgument, format!("expected a list at depth {depth} of a {}-d array, got {j}", dims.len()))
    })?;
    match dims[depth] {
        None => dims[depth] = Some(list.len()),
        Some(n) if n != list.len() => {
            return Err(VrError::new(ErrorKind::InvalidArgument, format!("ragged array: lists of length {n} and {} at depth {depth}", list.len())))
        }
        _ => {}
    }
    if list.is_empty() {
        // An empty list leaves the deeper extents at 0.
        for d in dims.iter_mut().skip(depth + 1) {
            d.get_or_insert(0);
        }
    }
    for item in list {
        flatten_json(item, depth + 1, dims, out, t)?;
    }
    Ok(())
}

/// Iterates over multi-indices of a shape in logical order (last index fastest).
pub struct MultiIndex {
    dims: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl MultiIndex {
    pub fn new(dims: &[usize]) -> MultiIndex {
        let empty = dims.iter().any(|&d| d == 0);
        MultiIndex { dims: dims.to_vec(), next: if empty { None } else { Some(vec![0; dims.len()]) } }
    }
}

impl Iterator for MultiIndex {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        let cur = self.next.take()?;
        let mut n = cur.clone();
        let mut k = n.len();
        loop {
            if k == 0 {
                self.next = None;
                break;
            }
            k -= 1;
            n[k] += 1;
            if n[k] < self.dims[k] {
                self.next = Some(n);
                break;
            }
            n[k] = 0;
        }
        Some(cur)
    }
}

/// A concrete range: start, inclusive stop, non-zero step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeVal {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}

impl RangeVal {
    /// Number of values start, start+step, ... not passing stop.
    pub fn len(&self) -> usize {
        if self.step > 0 && self.stop >= self.start {
            ((self.stop as i128 - self.start as i128) / self.step as i128 + 1) as usize
        } else if self.step < 0 && self.stop <= self.start {
            ((self.start as i128 - self.stop as i128) / (-(self.step as i128)) + 1) as usize
        } else {
            0
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn nth(&self, k: usize) -> i64 {
        self.start + (k as i64) * self.step
    }
}

#[derive(Clone, Debug)]
pub enum Value {
    Scalar(Scalar),
    Array(Array),
    Range(RangeVal),
    Domain(Vec<RangeVal>),
    Tuple(Vec<Value>),
    /// The value of a void call, or of a variable not yet assigned.
    Void,
}

impl Value {
    pub fn to_json(&self) -> Json {
        match self {
            Value::Scalar(s) => s.to_json(),
            Value::Array(a) => a.to_json(),
            Value::Range(r) => json!({"start": r.start, "stop": r.stop, "step": r.step}),
            Value::Domain(rs) => {
                Json::Array(rs.iter().map(|r| json!({"start": r.start, "stop": r.stop, "step": r.step})).collect())
            }
            Value::Tuple(items) => Json::Array(items.iter().map(Value::to_json).collect()),
            Value::Void => Json::Null,
        }
    }

    /// Read a value of type `ty` from its JSON form (the form `to_json` writes, or plain
    /// nested lists for arrays).
    pub fn from_json(j: &Json, ty: &Type) -> VrResult<Value> {
        let bad = |m: String| VrError::new(ErrorKind::InvalidArgument, m);
        match ty {
            Type::Scalar { elem } => Ok(Value::Scalar(Scalar::from_json(j, *elem)?)),
            Type::Array(a) => Ok(Value::Array(Array::from_json(j, *a)?)),
            Type::Range => Ok(Value::Range(range_from_json(j)?)),
            Type::Domain { ndims } => {
                let list = j.as_array().ok_or_else(|| bad(format!("expected a list of ranges, got {j}")))?;
                if list.len() != *ndims as usize {
                    return Err(bad(format!("expected {ndims} ranges, got {}", list.len())));
                }
                Ok(Value::Domain(list.iter().map(range_from_json).collect::<VrResult<_>>()?))
            }
            Type::Tuple { items } => {
                let list = j.as_array().ok_or_else(|| bad(format!("expected a tuple list, got {j}")))?;
                if list.len() != items.len() {
                    return Err(bad(format!("expected {} tuple items, got {}", items.len(), list.len())));
                }
                Ok(Value::Tuple(list.iter().zip(items).map(|(j, t)| Value::from_json(j, t)).collect::<VrResult<_>>()?))
            }
            Type::Void | Type::Func { .. } => Err(bad(format!("no value of type {ty} can be passed"))),
        }
    }

    /// Structural equality for tests (arrays: same element type, shape and elements).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Scalar(a), Value::Scalar(b)) => a.same(b),
            (Value::Array(a), Value::Array(b)) => {
                a.ty.elem == b.ty.elem
                    && a.dims == b.dims
                    && a.elements().iter().zip(b.elements().iter()).all(|(x, y)| x.same(y))
            }
            (Value::Range(a), Value::Range(b)) => a == b,
            (Value::Domain(a), Value::Domain(b)) => a == b,
            (Value::Tuple(a), Value::Tuple(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y)),
            (Value::Void, Value::Void) => true,
            _ => false,
        }
    }
}

fn range_from_json(j: &Json) -> VrResult<RangeVal> {
    let get = |k: &str| j.get(k).and_then(|v| v.as_i64());
    match (get("start"), get("stop"), get("step").or(Some(1))) {
        (Some(start), Some(stop), Some(step)) if step != 0 => Ok(RangeVal { start, stop, step }),
        _ => Err(VrError::new(ErrorKind::InvalidArgument, format!("expected a range {{start, stop, step}}, got {j}"))),
    }
}
