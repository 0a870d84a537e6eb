//! The library kernels' OpenCL C, each written once and instantiated per element type and
//! rank (the layout reaches them at run time as extents and strides, so one program
//! serves every layout and view of a type and rank):
//!
//! - [`gather`]: `dst[i...] = src[i...]` over the result's logical order, with the source
//!   read through any strides and offset: `copy`, `transpose` (the source's strides
//!   swapped), copying slices (offset and strides of the selection), layout changes.
//! - [`reduce`]: whole-array `sum`/`prod`/`amin`/`amax` in two kinds of stages, each
//!   work group folding into one partial result. *Ordered* stages give each work item a
//!   contiguous run of positions in storage order and combine neighbours only, so the
//!   result is the serial fold's even where the operation only looks associative (float
//!   `amin`/`amax`, whose ties between `0.0` and `-0.0` keep the earlier element, as the
//!   cpu backend's fold does); integer stages stride through the array (coalesced reads,
//!   exact in any order since wrapping `+`/`*` and integer min/max are associative).
//! - [`axis_reduce`]: one work item per output element, folding its lane from index 0
//!   upwards: the serial order, so float `sum`/`prod`/`mean` along an axis give the
//!   interpreter's bits.
//! - [`matmul`]: `(m x k) * (k x n)` with any strides, 16 x 16 tiles in local memory
//!   (float matmul's order of additions is unspecified, docs/vrir-semantics.md; integer
//!   matmul wraps, exact in any order).
//!
//! Every kernel computes in the same scalar operations as the interpreter: integer
//! `+`/`*` on unsigned types (two's complement wrapping), `min`/`max` as the cpu backend
//! (`y < x ? y : x`, a tie keeping the earlier `x`; NaN through `x + y`), `FP_CONTRACT OFF`.

use super::super::kernel::{c_type, mem_type, unsigned_of, Reject};
use crate::vrir::ast::ReduceOp;
use crate::vrir::types::ScalarType;
use std::fmt::Write;

/// The pragmas a program over `elem` needs, then `FP_CONTRACT OFF`.
fn header(elem: ScalarType) -> String {
    let mut s = String::new();
    if elem == ScalarType::F64 {
        s.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    s.push_str("#pragma OPENCL FP_CONTRACT OFF\n");
    s
}

/// `long e0, long e1, ...` (or strides `s`, ...).
fn longs(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|k| format!("long {prefix}{k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Statements turning the linear number `lin` into the multi-index over extents `e*` in
/// logical order (last index fastest), adding `i_k * s_k` to each offset named in
/// `offsets` (`(offset, stride prefix)` pairs).
fn unflatten(lin: &str, n: usize, offsets: &[(&str, &str)], out: &mut String) {
    let _ = writeln!(out, "    long vr_r = {lin};");
    for k in (0..n).rev() {
        if k > 0 {
            let _ = writeln!(out, "    long vr_i{k} = vr_r % e{k}; vr_r /= e{k};");
        } else {
            let _ = writeln!(out, "    long vr_i{k} = vr_r;");
        }
        for (o, s) in offsets {
            let _ = writeln!(out, "    {o} += vr_i{k} * {s}{k};");
        }
    }
}

/// `vr_gather`: `n` elements of rank `ndims`, element type `elem`. Arguments: source
/// (pointer, offset, strides per result dimension), destination (pointer, offset,
/// strides), the result's extents, the count.
pub fn gather(elem: ScalarType, ndims: usize) -> Result<String, Reject> {
    let t = mem_type(elem)?;
    let mut s = header(elem);
    let _ = writeln!(
        s,
        "__kernel void vr_gather(__global const {t}* src, long src_off, {}, __global {t}* dst, long dst_off, {}, {}, long n) {{",
        longs("s", ndims),
        longs("t", ndims),
        longs("e", ndims)
    );
    s.push_str("    long g = (long)get_global_id(0);\n    if (g >= n) return;\n");
    s.push_str("    long so = src_off, d = dst_off;\n");
    unflatten("g", ndims, &[("so", "s"), ("d", "t")], &mut s);
    s.push_str("    dst[d] = src[so];\n}\n");
    Ok(s)
}

/// `OP(a, b)` of a reduction in C type `t` (integers on unsigned types).
fn combine(op: ReduceOp, elem: ScalarType) -> Result<String, Reject> {
    let t = c_type(elem)?;
    Ok(match op {
        ReduceOp::Sum | ReduceOp::Mean if elem.is_int() => {
            format!("(({t})(({u})(a) + ({u})(b)))", u = unsigned_of(elem))
        }
        ReduceOp::Prod if elem.is_int() => {
            format!("(({t})(({u})(a) * ({u})(b)))", u = unsigned_of(elem))
        }
        ReduceOp::Sum | ReduceOp::Mean => "((a) + (b))".into(),
        ReduceOp::Prod => "((a) * (b))".into(),
        ReduceOp::Min | ReduceOp::Max => {
            let cmp = if op == ReduceOp::Min { "<" } else { ">" };
            if elem.is_float() {
                format!("((isnan(a) || isnan(b)) ? (a) + (b) : ((b) {cmp} (a) ? (b) : (a)))")
            } else {
                format!("((b) {cmp} (a) ? (b) : (a))")
            }
        }
        ReduceOp::MeanRefined => return Err("mean-refined".into()),
    })
}

/// The value a fold starts from (the identity for `amin`/`amax`: the extreme value, which
/// the first element always replaces or equals bit for bit).
fn identity(op: ReduceOp, elem: ScalarType) -> Result<String, Reject> {
    let t = c_type(elem)?;
    Ok(match (op, elem) {
        (ReduceOp::Sum | ReduceOp::Mean, _) => format!("(({t})0)"),
        (ReduceOp::Prod, _) => format!("(({t})1)"),
        (ReduceOp::Min, ScalarType::I32) => "INT_MAX".into(),
        (ReduceOp::Min, ScalarType::I64) => "LONG_MAX".into(),
        (ReduceOp::Max, ScalarType::I32) => "INT_MIN".into(),
        (ReduceOp::Max, ScalarType::I64) => "LONG_MIN".into(),
        (ReduceOp::Min, _) => format!("(({t})INFINITY)"),
        (ReduceOp::Max, _) => format!("(-({t})INFINITY)"),
        _ => return Err(format!("{} of {elem}", op.name())),
    })
}

/// Whether a whole-array reduction must keep the serial order of combination (see the
/// module documentation): float `amin`/`amax`. Float `sum`/`prod` are never reduced on
/// the device (their rounding depends on the grouping; the CPU folds them).
pub fn ordered(op: ReduceOp, elem: ScalarType) -> bool {
    elem.is_float() && matches!(op, ReduceOp::Min | ReduceOp::Max)
}

/// Whole-array reduction of an array of rank `ndims`: two kernels in one program.
/// `vr_reduce_first(x, off, e*, s*, int col, int contig, long n, long chunk, out, scratch)`
/// folds the array (positions in storage order: column-major first index fastest when
/// `col`, else last; `contig`: position p is element `off + p`); `vr_reduce_next(x, n,
/// chunk, out, scratch)` folds a contiguous array of partial results. Each work group
/// writes one partial to `out[group]`.
pub fn reduce(op: ReduceOp, elem: ScalarType, ndims: usize) -> Result<String, Reject> {
    let t = c_type(elem)?;
    let tm = mem_type(elem)?;
    let mut s = header(elem);
    let _ = writeln!(s, "#define OP(a, b) {}", combine(op, elem)?);
    let _ = writeln!(s, "#define IDENT {}", identity(op, elem)?);
    let ordered = ordered(op, elem);
    // The position loop: ordered = a contiguous run per work item.
    let fold = |load: &str| {
        let mut f = String::new();
        if ordered {
            f.push_str(
                "    long lo = g * chunk, hi = lo + chunk < n ? lo + chunk : n;\n    for (long p = lo; p < hi; p++) {\n",
            );
        } else {
            f.push_str(
                "    long G = (long)get_global_size(0);\n    for (long p = g; p < n; p += G) {\n",
            );
        }
        f.push_str(load);
        f.push_str("        acc = OP(acc, v);\n    }\n");
        f
    };
    let tree = "    scratch[l] = acc;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    for (long st = 1; st < wg; st <<= 1) {\n        if ((l & (2 * st - 1)) == 0 && l + st < wg) { {T} a = scratch[l]; {T} b = scratch[l + st]; scratch[l] = OP(a, b); }\n        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n    if (l == 0) out[get_group_id(0)] = scratch[0];\n}\n".replace("{T}", t);
    let start = format!(
        "    long g = (long)get_global_id(0), l = (long)get_local_id(0), wg = (long)get_local_size(0);\n    {t} acc = IDENT;\n"
    );
    // First stage: storage position p -> element offset.
    let _ = writeln!(
        s,
        "__kernel void vr_reduce_first(__global const {tm}* x, long off, {}, {}, int col, int contig, long n, long chunk, __global {t}* out, __local {t}* scratch) {{",
        longs("e", ndims),
        longs("s", ndims)
    );
    s.push_str(&start);
    let mut load = String::from("        long o = off;\n        if (contig) { o += p; } else {\n            long r = p;\n            if (col) {\n");
    for k in 0..ndims {
        let _ = writeln!(load, "                o += (r % e{k}) * s{k}; r /= e{k};");
    }
    load.push_str("            } else {\n");
    for k in (0..ndims).rev() {
        let _ = writeln!(load, "                o += (r % e{k}) * s{k}; r /= e{k};");
    }
    load.push_str("            }\n        }\n");
    let _ = writeln!(load, "        {t} v = ({t})x[o];");
    s.push_str(&fold(&load));
    s.push_str(&tree);
    let _ = writeln!(
        s,
        "__kernel void vr_reduce_next(__global const {t}* x, long n, long chunk, __global {t}* out, __local {t}* scratch) {{"
    );
    s.push_str(&start);
    s.push_str(&fold(&format!("        {t} v = x[p];\n")));
    s.push_str(&tree);
    Ok(s)
}

/// `vr_axis`: reduction of an array of rank `ndims` along `axis`, one work item per
/// output element (logical order of the remaining dimensions), the lane folded from
/// index 0 upwards. Arguments: source (pointer, offset, extents, strides), destination
/// (pointer, offset, strides of its `ndims - 1` dimensions), the output count.
pub fn axis_reduce(
    op: ReduceOp,
    elem: ScalarType,
    ndims: usize,
    axis: usize,
) -> Result<String, Reject> {
    let t = c_type(elem)?;
    let tm = mem_type(elem)?;
    let mut s = header(elem);
    let _ = writeln!(s, "#define OP(a, b) {}", combine(op, elem)?);
    let _ = writeln!(
        s,
        "__kernel void vr_axis(__global const {tm}* x, long off, {}, {}, __global {tm}* y, long yoff{}{}, long n) {{",
        longs("e", ndims),
        longs("s", ndims),
        if ndims > 1 { ", " } else { "" },
        longs("t", ndims - 1)
    );
    s.push_str("    long g = (long)get_global_id(0);\n    if (g >= n) return;\n    long o = off, d = yoff, r = g;\n");
    // The output's dimensions are the source's without `axis`; output dimension j
    // strides as t_j.
    let out_dims: Vec<usize> = (0..ndims).filter(|k| *k != axis).collect();
    for (j, k) in out_dims.iter().enumerate().rev() {
        let _ = writeln!(
            s,
            "    {{ long i = r % e{k}; r /= e{k}; o += i * s{k}; d += i * t{j}; }}"
        );
    }
    let a = axis;
    match op {
        ReduceOp::Min | ReduceOp::Max => {
            let _ = writeln!(s, "    {t} acc = ({t})x[o];");
            let _ = writeln!(
                s,
                "    for (long k = 1; k < e{a}; k++) {{ {t} a = acc; {t} b = ({t})x[o + k * s{a}]; acc = OP(a, b); }}"
            );
        }
        _ => {
            let start = if op == ReduceOp::Prod { "1" } else { "0" };
            let _ = writeln!(s, "    {t} acc = ({t}){start};");
            let _ = writeln!(
                s,
                "    for (long k = 0; k < e{a}; k++) {{ {t} a = acc; {t} b = ({t})x[o + k * s{a}]; acc = OP(a, b); }}"
            );
        }
    }
    if op == ReduceOp::Mean {
        // The sum divided by the count converted to the element type (as C converts).
        let _ = writeln!(s, "    acc = acc / ({t})e{a};");
    }
    s.push_str("    y[d] = acc;\n}\n");
    Ok(s)
}

/// Tile edge of [`matmul`] (work groups of TILE x TILE).
pub const TILE: usize = 16;

/// `vr_matmul(A, aoff, as0, as1, B, boff, bs0, bs1, C, coff, cs0, cs1, M, N, K)`:
/// `C(i, j) = sum over k of A(i, k) * B(k, j)`; dimension 0 of the NDRange runs over j.
pub fn matmul(elem: ScalarType) -> Result<String, Reject> {
    let t = c_type(elem)?;
    let (add, mul) = if elem.is_int() {
        let u = unsigned_of(elem);
        (
            format!("(({t})(({u})(a) + ({u})(b)))"),
            format!("(({t})(({u})(a) * ({u})(b)))"),
        )
    } else {
        ("((a) + (b))".to_string(), "((a) * (b))".to_string())
    };
    let mut s = header(elem);
    let _ = writeln!(
        s,
        "#define TS {TILE}\n#define ADD(a, b) {add}\n#define MUL(a, b) {mul}"
    );
    let _ = writeln!(
        s,
        "__kernel void vr_matmul(__global const {t}* A, long aoff, long as0, long as1, __global const {t}* B, long boff, long bs0, long bs1, __global {t}* C, long coff, long cs0, long cs1, long M, long N, long K) {{"
    );
    s.push_str(&format!(
        "    long j = (long)get_global_id(0), i = (long)get_global_id(1);
    int lj = (int)get_local_id(0), li = (int)get_local_id(1);
    __local {t} At[TS][TS];
    __local {t} Bt[TS][TS];
    {t} acc = ({t})0;
    for (long t0 = 0; t0 < K; t0 += TS) {{
        long ka = t0 + lj, kb = t0 + li;
        At[li][lj] = (i < M && ka < K) ? A[aoff + i * as0 + ka * as1] : ({t})0;
        Bt[li][lj] = (kb < K && j < N) ? B[boff + kb * bs0 + j * bs1] : ({t})0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) {{ {t} a = At[li][k]; {t} b = Bt[k][lj]; {t} p = MUL(a, b); a = acc; b = p; acc = ADD(a, b); }}
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (i < M && j < N) C[coff + i * cs0 + j * cs1] = acc;
}}
"
    ));
    Ok(s)
}
