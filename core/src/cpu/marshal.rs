//! Run-time values <-> the entry wrapper's argument and result pointers.
//!
//! Scalars travel in 16-byte slots (bool as one byte 0/1, complex as re then im, the
//! layout of num-complex's `Complex`, so a complex array is interleaved pairs and its
//! buffer is passed as it is); arrays as an [`ArrayDesc`]
//! pointing straight into the value's shared buffer (no copy: compiled code writes
//! through it exactly as the interpreter would).

use super::abi::{Arena, ArrayDesc};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{Array, Buffer, Scalar, Value};
use crate::vrir::ast::Function;
use crate::vrir::types::{Layout, ScalarType, Type};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

fn invalid(msg: String) -> VrError {
    VrError::new(ErrorKind::InvalidArgument, msg)
}

/// Storage for one call's arguments and results; pointers handed to generated code
/// point into its boxes, which do not move while it lives.
#[allow(clippy::vec_box)] // boxed: their addresses are handed to generated code and must not move
pub struct CallFrame {
    scalars: Vec<Box<ScalarSlot>>,
    descs: Vec<Box<ArrayDesc>>,
    /// Ranges, domains and tuples passed by pointer (`marshal_value`'s layout).
    values: Vec<Vec<u64>>,
    shapes: Vec<(Vec<i64>, Vec<i64>)>,
    /// Keeps the arrays (and so their buffers) alive during the call.
    arrays: Vec<Array>,
    pub arg_ptrs: Vec<*mut u8>,
    results: Vec<ResultSlot>,
    pub result_ptrs: Vec<*mut u8>,
}

/// Where generated code writes one result.
enum ResultSlot {
    Scalar(Box<ScalarSlot>, ScalarType),
    /// A range, domain or tuple in `marshal_value`'s layout.
    Value(Vec<u64>, Type),
    /// A descriptor whose dims/strides point into the two vectors (written by the callee).
    Array(
        Box<ArrayDesc>,
        Vec<i64>,
        Vec<i64>,
        crate::vrir::types::ArrayType,
    ),
}

/// One scalar argument or result: room for a c128 (two f64), 8-byte aligned.
pub(crate) type ScalarSlot = [u64; 2];

/// A scalar in its slot's memory representation (little-endian: a c64's re is the
/// low half of the first word).
pub(crate) fn scalar_bits(s: Scalar) -> ScalarSlot {
    match s {
        Scalar::Bool(b) => [b as u64, 0],
        Scalar::I32(v) => [v as u32 as u64, 0],
        Scalar::I64(v) => [v as u64, 0],
        Scalar::F32(v) => [v.to_bits() as u64, 0],
        Scalar::F64(v) => [v.to_bits(), 0],
        Scalar::C64(c) => [c.re.to_bits() as u64 | ((c.im.to_bits() as u64) << 32), 0],
        Scalar::C128(c) => [c.re.to_bits(), c.im.to_bits()],
    }
}

/// The scalar of type `t` held in a slot (the inverse of [`scalar_bits`]).
pub(crate) fn scalar_of_bits(bits: ScalarSlot, t: ScalarType) -> Scalar {
    match t {
        ScalarType::Bool => Scalar::Bool(bits[0] as u8 != 0),
        ScalarType::I32 => Scalar::I32(bits[0] as u32 as i32),
        ScalarType::I64 => Scalar::I64(bits[0] as i64),
        ScalarType::F32 => Scalar::F32(f32::from_bits(bits[0] as u32)),
        ScalarType::F64 => Scalar::F64(f64::from_bits(bits[0])),
        ScalarType::C64 => Scalar::C64(num_complex::Complex32::new(
            f32::from_bits(bits[0] as u32),
            f32::from_bits((bits[0] >> 32) as u32),
        )),
        ScalarType::C128 => Scalar::C128(num_complex::Complex64::new(
            f64::from_bits(bits[0]),
            f64::from_bits(bits[1]),
        )),
    }
}

pub(crate) fn elem_size(t: ScalarType) -> usize {
    match t {
        ScalarType::Bool => 1,
        ScalarType::I32 | ScalarType::F32 => 4,
        ScalarType::I64 | ScalarType::F64 | ScalarType::C64 => 8,
        ScalarType::C128 => 16,
    }
}

/// Pointer to element `offset` of a buffer.
fn buffer_ptr(a: &Array) -> *mut u8 {
    // SAFETY: no borrow is held across the call; the buffer lives as long as the frame
    // (it holds a clone of the Rc). Generated code only touches in-bounds elements
    // (checked, or promised by :nocheck).
    let buf: &mut Buffer = unsafe { &mut *a.data.as_ptr() };
    let base = match buf {
        Buffer::Bool(v) => v.as_mut_ptr() as *mut u8,
        Buffer::I32(v) => v.as_mut_ptr() as *mut u8,
        Buffer::I64(v) => v.as_mut_ptr() as *mut u8,
        Buffer::F32(v) => v.as_mut_ptr() as *mut u8,
        Buffer::F64(v) => v.as_mut_ptr() as *mut u8,
        Buffer::C64(v) => v.as_mut_ptr() as *mut u8,
        Buffer::C128(v) => v.as_mut_ptr() as *mut u8,
    };
    base.wrapping_add(a.offset * elem_size(a.ty.elem))
}

impl CallFrame {
    /// Check `args` against `f`'s parameters and lay them out for the entry wrapper.
    pub fn new(f: &Function, args: Vec<Value>) -> VrResult<CallFrame> {
        // Same checks and messages as the interpreter's (which also verifies that an
        // array's window lies inside its buffer, so generated code stays in bounds).
        if args.len() != f.params.len() {
            return Err(invalid(format!(
                "`{}` takes {} arguments but {} were given",
                f.name,
                f.params.len(),
                args.len()
            ))
            .with_function(&f.name));
        }
        for (p, a) in f.params.iter().zip(&args) {
            crate::interp::check_argument(a, &p.ty).map_err(|msg| {
                invalid(format!("argument `{}`: {msg}", p.name)).with_function(&f.name)
            })?;
        }
        let mut fr = CallFrame {
            scalars: Vec::new(),
            descs: Vec::new(),
            values: Vec::new(),
            shapes: Vec::new(),
            arrays: Vec::new(),
            arg_ptrs: Vec::new(),
            results: Vec::new(),
            result_ptrs: Vec::new(),
        };
        for (p, a) in f.params.iter().zip(args) {
            match (&p.ty, a) {
                (Type::Scalar { elem }, Value::Scalar(s)) if s.ty() == *elem => {
                    let mut b = Box::new(scalar_bits(s));
                    fr.arg_ptrs.push(&mut *b as *mut ScalarSlot as *mut u8);
                    fr.scalars.push(b);
                }
                (Type::Array(t), Value::Array(arr))
                    if arr.ty.elem == t.elem
                        && arr.ty.ndims == t.ndims
                        && (t.layout == Layout::Strided || arr.ty.layout == t.layout) =>
                {
                    let dims: Vec<i64> = arr.dims.iter().map(|d| *d as i64).collect();
                    let strides: Vec<i64> = arr.strides.iter().map(|s| *s as i64).collect();
                    let mut desc = Box::new(ArrayDesc {
                        data: buffer_ptr(&arr),
                        dims: dims.as_ptr(),
                        strides: strides.as_ptr(),
                    });
                    fr.arg_ptrs.push(&mut *desc as *mut ArrayDesc as *mut u8);
                    // Moving the Vecs does not move their heap storage.
                    fr.shapes.push((dims, strides));
                    fr.descs.push(desc);
                    fr.arrays.push(arr);
                }
                (t, v) if super::codegen::is_compound(t) => {
                    let mut buf = super::marshal_value::buffer_for(t)?;
                    let mut kept = Vec::new();
                    // SAFETY: buf holds layout(t) bytes; check_argument checked v's type.
                    unsafe {
                        super::marshal_value::write_value(
                            buf.as_mut_ptr() as *mut u8,
                            t,
                            &v,
                            &mut |a: &Array| {
                                kept.push(a.clone());
                                (
                                    buffer_ptr(a),
                                    a.dims.iter().map(|d| *d as i64).collect(),
                                    a.strides.iter().map(|s| *s as i64).collect(),
                                )
                            },
                        )?;
                    }
                    fr.arg_ptrs.push(buf.as_mut_ptr() as *mut u8);
                    // Moving the Vec does not move its heap storage.
                    fr.values.push(buf);
                    fr.arrays.extend(kept);
                }
                (t, v) => {
                    return Err(invalid(format!(
                        "argument `{}`: expected a value of type {t}, got {}",
                        p.name,
                        describe(&v)
                    ))
                    .with_function(&f.name))
                }
            }
        }
        for r in &f.results {
            match r {
                Type::Array(at) => {
                    let n = at.ndims as usize;
                    // Written by generated code: pointers from as_mut_ptr.
                    let (mut dims, mut strides) = (vec![0i64; n], vec![0i64; n]);
                    let mut desc = Box::new(ArrayDesc {
                        data: std::ptr::null_mut(),
                        dims: dims.as_mut_ptr(),
                        strides: strides.as_mut_ptr(),
                    });
                    fr.result_ptrs.push(&mut *desc as *mut ArrayDesc as *mut u8);
                    fr.results.push(ResultSlot::Array(desc, dims, strides, *at));
                }
                t if super::codegen::is_compound(t) => {
                    let mut buf = super::marshal_value::buffer_for(t)?;
                    fr.result_ptrs.push(buf.as_mut_ptr() as *mut u8);
                    fr.results.push(ResultSlot::Value(buf, t.clone()));
                }
                other => {
                    let t = other
                        .as_scalar()
                        .ok_or_else(|| invalid(format!("result of type {other}")))?;
                    let mut b = Box::new([0u64; 2]);
                    fr.result_ptrs.push(&mut *b as *mut ScalarSlot as *mut u8);
                    fr.results.push(ResultSlot::Scalar(b, t));
                }
            }
        }
        Ok(fr)
    }

    /// Read the results written by a successful call. An array result names storage
    /// of one of the arguments (this increment allocates nothing): it comes back as a
    /// view of that argument's buffer, typed as the declared result, as the interpreter
    /// returns it.
    pub fn results(&self, arena: &Arena) -> VrResult<Vec<Value>> {
        // Arena blocks already copied out: results that share one share its copy.
        let mut copies: HashMap<usize, SharedBuffer> = HashMap::new();
        self.results
            .iter()
            .map(|slot| {
                Ok(match slot {
                    ResultSlot::Array(desc, dims, strides, at) => Value::Array(self.array_result(
                        desc,
                        dims,
                        strides,
                        *at,
                        arena,
                        &mut copies,
                    )?),
                    ResultSlot::Scalar(b, t) => Value::Scalar(scalar_of_bits(**b, *t)),
                    // SAFETY: generated code wrote a value of type t into buf.
                    ResultSlot::Value(buf, t) => unsafe {
                        super::marshal_value::read_value(
                            buf.as_ptr() as *const u8,
                            t,
                            &mut |data, dims, strides, at| {
                                let desc = ArrayDesc {
                                    data,
                                    dims: dims.as_ptr(),
                                    strides: strides.as_ptr(),
                                };
                                self.array_result(&desc, &dims, &strides, at, arena, &mut copies)
                            },
                        )?
                    },
                })
            })
            .collect()
    }

    fn array_result(
        &self,
        desc: &ArrayDesc,
        dims: &[i64],
        strides: &[i64],
        at: crate::vrir::types::ArrayType,
        arena: &Arena,
        copies: &mut HashMap<usize, SharedBuffer>,
    ) -> VrResult<Array> {
        let lost = || {
            VrError::new(
                ErrorKind::Internal,
                "cpu backend: an array result outside every argument",
            )
        };
        let size = elem_size(at.elem);
        let data = desc.data as usize;
        let dims: Vec<usize> = dims
            .iter()
            .map(|d| usize::try_from(*d).map_err(|_| lost()))
            .collect::<VrResult<_>>()?;
        let strides: Vec<isize> = strides.iter().map(|s| *s as isize).collect();
        for a in self.arrays.iter().filter(|a| a.ty.elem == at.elem) {
            // SAFETY: only the address is read (as in `buffer_ptr`); no borrow is held.
            let buf = unsafe { &*a.data.as_ptr() };
            let base = buffer_ptr(&Array {
                offset: 0,
                ..a.clone()
            }) as usize;
            let end = base + buf.len() * size;
            if data >= base && data <= end && (data - base).is_multiple_of(size) {
                return Ok(Array {
                    ty: at,
                    dims,
                    strides,
                    offset: (data - base) / size,
                    data: a.data.clone(),
                });
            }
        }
        // Created by the call: copy its whole arena block out (the arena is freed when
        // the call returns), keeping the view's offset and strides.
        if let Some((k, start, _)) = arena.block_of(desc.data) {
            let (buffer, elems) = match copies.get(&k) {
                Some(c) => c.clone(),
                None => {
                    let c = copy_block(start, arena.block_of(start).map_or(0, |b| b.2), at.elem);
                    copies.insert(k, c.clone());
                    c
                }
            };
            return Ok(Array {
                ty: at,
                dims,
                strides,
                offset: (data - elems) / size,
                data: buffer,
            });
        }
        Err(lost())
    }
}

/// A copied arena block: its elements and the address where they started.
type SharedBuffer = (Rc<RefCell<Buffer>>, usize);

/// The elements of the arena block at `start` (`bytes` long; it begins with the
/// descriptor of the array it was created for), as a buffer of `elem`.
fn copy_block(start: *const u8, bytes: usize, elem: ScalarType) -> SharedBuffer {
    // SAFETY: every arena block starts with the descriptor written by the allocator,
    // whose `data` lies inside the block; the elements run to the block's end.
    let data = unsafe { (*(start as *const ArrayDesc)).data } as usize;
    let n = (start as usize + bytes).saturating_sub(data) / elem_size(elem);
    fn read<T: Copy>(p: usize, n: usize) -> Vec<T> {
        // SAFETY: `n` elements of T lie at `p` (see copy_block), aligned to 64 bytes.
        unsafe { std::slice::from_raw_parts(p as *const T, n).to_vec() }
    }
    let buffer = match elem {
        ScalarType::Bool => Buffer::Bool(read::<u8>(data, n).into_iter().map(|b| b != 0).collect()),
        ScalarType::I32 => Buffer::I32(read(data, n)),
        ScalarType::I64 => Buffer::I64(read(data, n)),
        ScalarType::F32 => Buffer::F32(read(data, n)),
        ScalarType::F64 => Buffer::F64(read(data, n)),
        ScalarType::C64 => Buffer::C64(read(data, n)),
        ScalarType::C128 => Buffer::C128(read(data, n)),
    };
    (Rc::new(RefCell::new(buffer)), data)
}

fn describe(v: &Value) -> String {
    match v {
        Value::Scalar(s) => s.ty().to_string(),
        Value::Array(a) => a.ty.to_string(),
        Value::Range(_) => "range".into(),
        Value::Domain(d) => format!("domain[{}]", d.len()),
        Value::Tuple(_) => "tuple".into(),
        Value::Void => "void".into(),
    }
}
