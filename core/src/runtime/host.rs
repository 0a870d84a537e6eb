//! Arrays that live in a host's memory, as the C API hands them in: a data pointer, the
//! element type, dims and strides in elements, the layout the host declares and whether
//! it may be written. Compiled code reads and writes them in place (zero copy); this file
//! checks them against a function's parameter types, classifies their shape, and copies
//! between two strided arrays (for results created by compiled code, and for hosts that
//! pass arguments by value).

use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};

/// One array in host memory. `data` points at element (0, ..., 0); strides may be
/// negative or zero. The host keeps the memory alive and unmoved for the whole call.
#[derive(Clone, Debug)]
pub struct HostArray {
    pub data: *mut u8,
    /// Element type, rank, and the layout the host declares (checked against strides).
    pub ty: ArrayType,
    pub dims: Vec<i64>,
    pub strides: Vec<i64>,
    pub writeable: bool,
    /// The host vouches that the elements are unchanged since it last passed this memory
    /// as stable, unless it said otherwise (`gpu::resident::forget`): device copies left
    /// by earlier calls may be reused. Only honoured for parameters the call does not
    /// write.
    pub stable: bool,
}

/// A call argument from a host.
#[derive(Clone, Debug)]
pub enum HostArg {
    Scalar(crate::runtime::value::Scalar),
    Array(HostArray),
}

/// How a host passes arrays: R and MATLAB by value (the callee must not change the
/// caller's array: it works on a copy once it may write), Julia, NumPy and C by reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgConvention {
    ByReference,
    ByValue,
}

/// Bytes of one element as compiled code stores it (bool: one byte, 0 or 1).
pub fn elem_size(t: ScalarType) -> usize {
    match t {
        ScalarType::Bool => 1,
        ScalarType::I32 | ScalarType::F32 => 4,
        ScalarType::I64 | ScalarType::F64 | ScalarType::C64 => 8,
        ScalarType::C128 => 16,
    }
}

/// Strides (in elements) of a contiguous array of `dims` in `layout` (`Strided` is
/// stored row-major, as the interpreter stores it).
pub fn contiguous_strides(dims: &[i64], layout: Layout) -> Vec<i64> {
    let udims: Vec<usize> = dims.iter().map(|d| (*d).max(0) as usize).collect();
    crate::runtime::value::contiguous_strides(&udims, layout)
        .into_iter()
        .map(|s| s as i64)
        .collect()
}

/// Whether strides describe a contiguous array of `dims` in `layout`. Extents of 0 or 1
/// make a stride irrelevant (NumPy and R do not agree on what to put there).
fn strides_match(dims: &[i64], strides: &[i64], layout: Layout) -> bool {
    let want = contiguous_strides(dims, layout);
    dims.iter()
        .zip(strides.iter().zip(&want))
        .all(|(d, (s, w))| *d <= 1 || s == w)
}

impl HostArray {
    /// The shape class compiled code may be specialized on: `Row` or `Col` when the
    /// elements are contiguous in that order (row wins for 1-d), else `Strided`.
    pub fn shape_class(&self) -> Layout {
        if strides_match(&self.dims, &self.strides, Layout::Row) {
            Layout::Row
        } else if strides_match(&self.dims, &self.strides, Layout::Col) {
            Layout::Col
        } else {
            Layout::Strided
        }
    }

    /// Whether this array's descriptor is well formed: rank, non-negative dims, strides
    /// that agree with the declared layout, non-null data when it has elements.
    pub fn check_well_formed(&self) -> Result<(), String> {
        let n = self.ty.ndims as usize;
        if n == 0 || self.dims.len() != n || self.strides.len() != n {
            return Err(format!(
                "array descriptor of rank {} with {} dims and {} strides",
                self.ty.ndims,
                self.dims.len(),
                self.strides.len()
            ));
        }
        if let Some(d) = self.dims.iter().find(|d| **d < 0) {
            return Err(format!("negative dimension {d}"));
        }
        let udims: Vec<usize> = self.dims.iter().map(|d| *d as usize).collect();
        crate::interp::element_count(&udims).map_err(|e| e.message)?;
        if self.ty.layout != Layout::Strided
            && !strides_match(&self.dims, &self.strides, self.ty.layout)
        {
            return Err(format!(
                "strides {:?} are not those of a contiguous {} array of dims {:?}",
                self.strides,
                if self.ty.layout == Layout::Row { "row-major" } else { "column-major" },
                self.dims
            ));
        }
        if self.data.is_null() && self.element_count() > 0 {
            return Err("null data pointer for an array with elements".into());
        }
        Ok(())
    }

    pub fn element_count(&self) -> usize {
        self.dims.iter().map(|d| (*d).max(0) as usize).product()
    }

    /// The bytes `[start, end)` the array's elements occupy, or None when it has none.
    pub fn byte_span(&self) -> Option<(usize, usize)> {
        if self.element_count() == 0 {
            return None;
        }
        let size = elem_size(self.ty.elem) as i64;
        let (mut lo, mut hi) = (0i64, 0i64);
        for (d, s) in self.dims.iter().zip(&self.strides) {
            let reach = (d - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        let base = self.data as i64;
        Some(((base + lo * size) as usize, (base + (hi + 1) * size) as usize))
    }
}

/// Whether `arg` may be passed for a parameter of type `param`; the reason if not.
/// Arrays: same element type and rank; a `row`/`col` parameter needs a contiguous array
/// in that order, a `strided` one takes any layout.
pub fn check_argument(param: &Type, arg: &HostArg) -> Result<(), String> {
    match (param, arg) {
        (Type::Scalar { elem }, HostArg::Scalar(s)) if s.ty() == *elem => Ok(()),
        (Type::Array(t), HostArg::Array(a)) => {
            if a.ty.elem != t.elem || a.ty.ndims != t.ndims {
                return Err(format!("expected {t}, got {}", a.ty));
            }
            a.check_well_formed()?;
            if t.layout != Layout::Strided && !strides_match(&a.dims, &a.strides, t.layout) {
                return Err(format!(
                    "expected {t}, got an array that is not contiguous in {} order",
                    t.layout.name()
                ));
            }
            Ok(())
        }
        (t, HostArg::Scalar(s)) => Err(format!("expected {t}, got {}", s.ty())),
        (t, HostArg::Array(a)) => Err(format!("expected {t}, got {}", a.ty)),
    }
}

/// Copy every element of an array of `dims` from `src` (strides `src_strides`) to `dst`
/// (strides `dst_strides`), `size` bytes each.
///
/// Results and by-value arguments cross the C API through here, so it must run at memory
/// speed: one `memcpy` when both sides are the same dense layout, one `memcpy` per run
/// along a dimension both sides step through element by element, and element copies
/// (a transpose) only when no such dimension exists.
///
/// # Safety
/// Both pointers address valid, non-overlapping arrays of that shape.
pub unsafe fn copy_strided(
    size: usize,
    dims: &[i64],
    src: *const u8,
    src_strides: &[i64],
    dst: *mut u8,
    dst_strides: &[i64],
) {
    if dims.iter().any(|d| *d <= 0) {
        return;
    }
    let count: i64 = dims.iter().product();
    if src_strides == dst_strides && is_dense(dims, src_strides) {
        std::ptr::copy_nonoverlapping(src, dst, count as usize * size);
        return;
    }
    let n = dims.len();
    // The dimension copied as one run: unit stride on both sides (the longest such).
    let run = (0..n)
        .filter(|&k| src_strides[k] == 1 && dst_strides[k] == 1)
        .max_by_key(|&k| dims[k]);
    let (run_len, outer): (i64, Vec<usize>) = match run {
        Some(r) => (dims[r], (0..n).filter(|&k| k != r).collect()),
        None => (1, (0..n).collect()),
    };
    let run_bytes = run_len as usize * size;
    let mut idx = vec![0i64; outer.len()];
    let (mut so, mut d_o) = (0i64, 0i64);
    loop {
        std::ptr::copy_nonoverlapping(
            src.offset((so * size as i64) as isize),
            dst.offset((d_o * size as i64) as isize),
            run_bytes,
        );
        // Odometer over the other dimensions, the last fastest; offsets kept incrementally.
        let mut j = outer.len();
        loop {
            if j == 0 {
                return;
            }
            j -= 1;
            let k = outer[j];
            idx[j] += 1;
            so += src_strides[k];
            d_o += dst_strides[k];
            if idx[j] < dims[k] {
                break;
            }
            so -= idx[j] * src_strides[k];
            d_o -= idx[j] * dst_strides[k];
            idx[j] = 0;
        }
    }
}

/// Strides (in elements) that lay `dims` out with no gaps, in some order of dimensions;
/// dimensions of extent 1 may have any stride.
fn is_dense(dims: &[i64], strides: &[i64]) -> bool {
    let mut order: Vec<usize> = (0..dims.len()).filter(|&k| dims[k] != 1).collect();
    order.sort_by_key(|&k| strides[k]);
    let mut expect = 1i64;
    for k in order {
        if strides[k] != expect {
            return false;
        }
        expect *= dims[k];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(dims: &[i64], strides: &[i64], layout: Layout) -> HostArray {
        HostArray {
            data: 8 as *mut u8,
            ty: ArrayType::new(ScalarType::F64, dims.len() as u32, layout),
            dims: dims.to_vec(),
            strides: strides.to_vec(),
            writeable: true,
            stable: false,
        }
    }

    #[test]
    fn shape_classes() {
        assert_eq!(arr(&[2, 3], &[3, 1], Layout::Strided).shape_class(), Layout::Row);
        assert_eq!(arr(&[2, 3], &[1, 2], Layout::Strided).shape_class(), Layout::Col);
        assert_eq!(arr(&[2, 3], &[6, 2], Layout::Strided).shape_class(), Layout::Strided);
        // A 1 x n array is contiguous both ways; its first stride does not matter.
        assert_eq!(arr(&[1, 3], &[99, 1], Layout::Strided).shape_class(), Layout::Row);
    }

    #[test]
    fn declared_layout_must_match_strides() {
        assert!(arr(&[2, 3], &[3, 1], Layout::Row).check_well_formed().is_ok());
        let e = arr(&[2, 3], &[1, 2], Layout::Row).check_well_formed().unwrap_err();
        assert!(e.contains("not those of a contiguous row-major"), "{e}");
        let e = arr(&[2, -1], &[1, 2], Layout::Strided).check_well_formed().unwrap_err();
        assert!(e.contains("negative dimension -1"), "{e}");
    }

    #[test]
    fn byte_span_with_negative_strides() {
        // 3 elements of 8 bytes walking backwards from address 8 + 16.
        let mut a = arr(&[3], &[-1], Layout::Strided);
        a.data = 24 as *mut u8;
        assert_eq!(a.byte_span(), Some((8, 32)));
    }

    #[test]
    fn copy_transposes_between_layouts() {
        let src: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2x3 row-major
        let mut dst = vec![0.0f64; 6];
        unsafe {
            copy_strided(
                8,
                &[2, 3],
                src.as_ptr() as *const u8,
                &[3, 1],
                dst.as_mut_ptr() as *mut u8,
                &[1, 2],
            )
        };
        assert_eq!(dst, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }

    /// Every path of `copy_strided` (one block, runs, element copies, negative strides)
    /// against an element-by-element reference.
    #[test]
    fn copy_paths_agree_with_elementwise_copy() {
        let dims = [3i64, 4, 5];
        let src: Vec<f64> = (0..60).map(|v| v as f64).collect();
        let layouts: [[i64; 3]; 4] = [[20, 5, 1], [1, 3, 12], [5, 15, 1], [1, 15, 3]];
        let value_at = |strides: &[i64; 3], buf: &[f64], i: i64, j: i64, k: i64| {
            buf[(i * strides[0] + j * strides[1] + k * strides[2]) as usize]
        };
        for s in &layouts {
            for d in &layouts {
                let mut dst = vec![-1.0f64; 60];
                unsafe {
                    copy_strided(8, &dims, src.as_ptr() as *const u8, s, dst.as_mut_ptr() as *mut u8, d)
                };
                for i in 0..3 {
                    for j in 0..4 {
                        for k in 0..5 {
                            assert_eq!(value_at(d, &dst, i, j, k), value_at(s, &src, i, j, k), "{s:?} -> {d:?}");
                        }
                    }
                }
            }
        }
        // A reversed vector (negative stride, data pointing at its first logical element).
        let mut dst = vec![0.0f64; 4];
        unsafe {
            copy_strided(8, &[4], src.as_ptr().add(3) as *const u8, &[-1], dst.as_mut_ptr() as *mut u8, &[1])
        };
        assert_eq!(dst, vec![3.0, 2.0, 1.0, 0.0]);
        assert!(is_dense(&[2, 1, 3], &[3, 99, 1]));
        assert!(!is_dense(&[2, 3], &[4, 1]));
    }
}
