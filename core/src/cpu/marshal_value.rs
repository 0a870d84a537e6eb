//! Ranges, domains and tuples crossing the entry wrapper: the Rust side of the memory
//! layout `codegen/tuple.rs` gives them (LLVM's natural struct layout on x86-64 and
//! AArch64, which is C's: each field at the next multiple of its alignment, a struct
//! as aligned as its most aligned field and padded to a multiple of that).
//!
//! Range: three i64 (start, inclusive stop, step). Domain: an array of ranges. Tuple:
//! the struct of its items. Scalar item: its slot representation (bool one byte,
//! complex re then im). Array item: data pointer, then dims and strides (i64 each).

use super::marshal::{elem_size, scalar_bits, scalar_of_bits, ScalarSlot};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{Array, RangeVal, Value};
use crate::vrir::types::{ArrayType, Type};

fn internal(msg: String) -> VrError {
    VrError::new(ErrorKind::Internal, format!("cpu backend: {msg}"))
}

/// (size, alignment) in bytes of a value of type `t` in memory.
pub fn layout(t: &Type) -> VrResult<(usize, usize)> {
    Ok(match t {
        Type::Scalar { elem } => {
            let s = elem_size(*elem);
            // c64 is two f32, c128 two f64: aligned as their parts.
            let align = if elem.is_complex() { s / 2 } else { s };
            (s, align)
        }
        Type::Array(a) => (8 + 16 * a.ndims as usize, 8),
        Type::Range => (24, 8),
        Type::Domain { ndims } => (24 * *ndims as usize, 8),
        Type::Tuple { items } => {
            let (mut off, mut align) = (0usize, 1usize);
            for it in items {
                let (s, a) = layout(it)?;
                off = off.next_multiple_of(a) + s;
                align = align.max(a);
            }
            (off.next_multiple_of(align), align)
        }
        other => {
            return Err(internal(format!(
                "no memory layout for a value of type {other}"
            )))
        }
    })
}

/// Offsets of a tuple's items.
fn item_offsets(items: &[Type]) -> VrResult<Vec<usize>> {
    let mut off = 0usize;
    let mut v = Vec::with_capacity(items.len());
    for it in items {
        let (s, a) = layout(it)?;
        off = off.next_multiple_of(a);
        v.push(off);
        off += s;
    }
    Ok(v)
}

/// Zeroed, 8-byte aligned memory for a value of type `t`.
pub fn buffer_for(t: &Type) -> VrResult<Vec<u64>> {
    let (size, _) = layout(t)?;
    Ok(vec![0u64; size.div_ceil(8).max(1)])
}

/// Reads an array item: (data pointer, dims, strides, declared type) -> the array.
pub type ReadArray<'a> = dyn FnMut(*mut u8, Vec<i64>, Vec<i64>, ArrayType) -> VrResult<Array> + 'a;

/// The value of type `t` that generated code wrote at `p`.
///
/// # Safety
/// `p` points to `layout(t).0` readable bytes laid out as the module doc says.
pub unsafe fn read_value(
    p: *const u8,
    t: &Type,
    read_array: &mut ReadArray<'_>,
) -> VrResult<Value> {
    let i64_at = |q: *const u8, k: usize| -> i64 { (q.add(8 * k) as *const i64).read_unaligned() };
    Ok(match t {
        Type::Scalar { elem } => {
            let mut slot: ScalarSlot = [0; 2];
            std::ptr::copy_nonoverlapping(p, slot.as_mut_ptr() as *mut u8, elem_size(*elem));
            Value::Scalar(scalar_of_bits(slot, *elem))
        }
        Type::Array(at) => {
            let n = at.ndims as usize;
            let data = (p as *const *mut u8).read_unaligned();
            let dims = (0..n).map(|k| i64_at(p.add(8), k)).collect();
            let strides = (0..n).map(|k| i64_at(p.add(8 + 8 * n), k)).collect();
            Value::Array(read_array(data, dims, strides, *at)?)
        }
        Type::Range => Value::Range(read_range(p)),
        Type::Domain { ndims } => Value::Domain(
            (0..*ndims as usize)
                .map(|k| read_range(p.add(24 * k)))
                .collect(),
        ),
        Type::Tuple { items } => {
            let offs = item_offsets(items)?;
            let mut vs = Vec::with_capacity(items.len());
            for (it, off) in items.iter().zip(offs) {
                vs.push(read_value(p.add(off), it, read_array)?);
            }
            Value::Tuple(vs)
        }
        other => return Err(internal(format!("read of a value of type {other}"))),
    })
}

unsafe fn read_range(p: *const u8) -> RangeVal {
    let q = p as *const i64;
    RangeVal {
        start: q.read_unaligned(),
        stop: q.add(1).read_unaligned(),
        step: q.add(2).read_unaligned(),
    }
}

/// Writes an array item's fields: the array -> its data pointer, dims and strides (the
/// caller keeps the array alive for the call).
pub type WriteArray<'a> = dyn FnMut(&Array) -> (*mut u8, Vec<i64>, Vec<i64>) + 'a;

/// Write `v` (checked by the caller to be of type `t`) at `p`.
///
/// # Safety
/// `p` points to `layout(t).0` writable bytes.
pub unsafe fn write_value(
    p: *mut u8,
    t: &Type,
    v: &Value,
    write_array: &mut WriteArray<'_>,
) -> VrResult<()> {
    match (t, v) {
        (Type::Scalar { elem }, Value::Scalar(s)) if s.ty() == *elem => {
            let slot = scalar_bits(*s);
            std::ptr::copy_nonoverlapping(slot.as_ptr() as *const u8, p, elem_size(*elem));
        }
        (Type::Array(at), Value::Array(a)) => {
            let n = at.ndims as usize;
            let (data, dims, strides) = write_array(a);
            (p as *mut *mut u8).write_unaligned(data);
            for k in 0..n {
                (p.add(8 + 8 * k) as *mut i64).write_unaligned(dims[k]);
                (p.add(8 + 8 * (n + k)) as *mut i64).write_unaligned(strides[k]);
            }
        }
        (Type::Range, Value::Range(r)) => write_range(p, r),
        (Type::Domain { ndims }, Value::Domain(rs)) if rs.len() == *ndims as usize => {
            for (k, r) in rs.iter().enumerate() {
                write_range(p.add(24 * k), r);
            }
        }
        (Type::Tuple { items }, Value::Tuple(vs)) if vs.len() == items.len() => {
            let offs = item_offsets(items)?;
            for ((it, x), off) in items.iter().zip(vs).zip(offs) {
                write_value(p.add(off), it, x, write_array)?;
            }
        }
        _ => return Err(internal(format!("a value passed as {t}"))),
    }
    Ok(())
}

unsafe fn write_range(p: *mut u8, r: &RangeVal) {
    let q = p as *mut i64;
    q.write_unaligned(r.start);
    q.add(1).write_unaligned(r.stop);
    q.add(2).write_unaligned(r.step);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::types::{Layout, ScalarType};

    #[test]
    fn tuple_layout_is_c_layout() {
        // (i32 c128 bool f64[2,row]): 4 + pad 4 + 16 + 1 + pad 7 + 40 = 72, align 8
        let t = Type::Tuple {
            items: vec![
                Type::I32,
                Type::C128,
                Type::BOOL,
                Type::array(ScalarType::F64, 2, Layout::Row),
            ],
        };
        assert_eq!(layout(&t).unwrap(), (72, 8));
        let Type::Tuple { items } = &t else {
            unreachable!()
        };
        assert_eq!(item_offsets(items).unwrap(), vec![0, 8, 24, 32]);
        // (c64 bool): 8 + 1, padded to align 4
        let u = Type::Tuple {
            items: vec![Type::C64, Type::BOOL],
        };
        assert_eq!(layout(&u).unwrap(), (12, 4));
    }
}
