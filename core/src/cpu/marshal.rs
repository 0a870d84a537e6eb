//! Run-time values <-> the entry wrapper's argument and result pointers.
//!
//! Scalars travel in 8-byte slots (bool as one byte 0/1); arrays as an [`ArrayDesc`]
//! pointing straight into the value's shared buffer (no copy: compiled code writes
//! through it exactly as the interpreter would).

use super::abi::ArrayDesc;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{Array, Buffer, Scalar, Value};
use crate::vrir::ast::Function;
use crate::vrir::types::{Layout, ScalarType, Type};

fn invalid(msg: String) -> VrError {
    VrError::new(ErrorKind::InvalidArgument, msg)
}

/// Storage for one call's arguments and results; pointers handed to generated code
/// point into its boxes, which do not move while it lives.
#[allow(clippy::vec_box)] // boxed: their addresses are handed to generated code and must not move
pub struct CallFrame {
    scalars: Vec<Box<u64>>,
    descs: Vec<Box<ArrayDesc>>,
    shapes: Vec<(Vec<i64>, Vec<i64>)>,
    /// Keeps the arrays (and so their buffers) alive during the call.
    arrays: Vec<Array>,
    pub arg_ptrs: Vec<*mut u8>,
    results: Vec<(Box<u64>, Type)>,
    pub result_ptrs: Vec<*mut u8>,
}

fn scalar_bits(s: Scalar) -> u64 {
    match s {
        Scalar::Bool(b) => b as u64,
        Scalar::I32(v) => v as u32 as u64,
        Scalar::I64(v) => v as u64,
        Scalar::F32(v) => v.to_bits() as u64,
        Scalar::F64(v) => v.to_bits(),
        // Excluded by the compiler (complex is unsupported in this increment).
        Scalar::C64(_) | Scalar::C128(_) => 0,
    }
}

fn elem_size(t: ScalarType) -> usize {
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
                    fr.arg_ptrs.push(&mut *b as *mut u64 as *mut u8);
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
            let mut b = Box::new(0u64);
            fr.result_ptrs.push(&mut *b as *mut u64 as *mut u8);
            fr.results.push((b, r.clone()));
        }
        Ok(fr)
    }

    /// Read the results written by a successful call. An array result is the address
    /// of one of the argument descriptors: that argument's array (the same storage),
    /// typed as the declared result, as the interpreter returns it.
    pub fn results(&self) -> VrResult<Vec<Value>> {
        self.results
            .iter()
            .map(|(b, t)| {
                let bits = **b;
                Ok(match t {
                    Type::Array(at) => {
                        let k = self
                            .descs
                            .iter()
                            .position(|d| &**d as *const ArrayDesc as u64 == bits)
                            .ok_or_else(|| {
                                VrError::new(
                                    ErrorKind::Internal,
                                    "cpu backend: an array result that is no argument",
                                )
                            })?;
                        let mut a = self.arrays[k].clone();
                        a.ty.layout = at.layout;
                        Value::Array(a)
                    }
                    Type::Scalar { elem } => Value::Scalar(match elem {
                        ScalarType::Bool => Scalar::Bool(bits as u8 != 0),
                        ScalarType::I32 => Scalar::I32(bits as u32 as i32),
                        ScalarType::I64 => Scalar::I64(bits as i64),
                        ScalarType::F32 => Scalar::F32(f32::from_bits(bits as u32)),
                        ScalarType::F64 => Scalar::F64(f64::from_bits(bits)),
                        // Excluded by the compiler.
                        ScalarType::C64 | ScalarType::C128 => Scalar::zero(*elem),
                    }),
                    other => {
                        return Err(VrError::new(
                            ErrorKind::Internal,
                            format!("cpu backend: result of type {other}"),
                        ))
                    }
                })
            })
            .collect()
    }
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
