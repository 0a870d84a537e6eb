//! `matmul` and `transpose`.
//!
//! `matmul` of every rank combination (2-D x 2-D, matrix-vector, vector-matrix, dot) is
//! one call of the Rust kernel [`crate::cpu::matmul::vr_cpu_matmul`] on an
//! `(m x k) * (k x n)` product: a 1-D left operand is a 1 x k row, a 1-D right operand a
//! k x 1 column, and the operands' own strides go to the kernel, so views of any layout
//! are multiplied in place. Generated code checks the inner extents first (the
//! interpreter's shape-mismatch error, field for field) and allocates the result (the
//! interpreter's layout rule); a dot product lands in a stack slot.
//!
//! `transpose` is a copy loop: 1-D arrays are copied, 2-D ones swap their dimensions.

use super::elementwise::{fresh_layout, Operand};
use super::{unsupported, ArrayView, CodeGen, FnGen, Val};
use crate::cpu::abi::ErrorCode;
use crate::cpu::matmul::elem_code;
use crate::runtime::error::VrResult;
use crate::vrir::ast::Expr;
use crate::vrir::types::{ArrayType, Layout};
use inkwell::module::Linkage;
use inkwell::values::{IntValue, PointerValue, ValueKind};
use inkwell::IntPredicate;

/// Name of the Rust matmul kernel (see `crate::cpu::matmul`).
pub const MATMUL: &str = "vr_cpu_matmul";

/// The note that makes a shape-mismatch error read as matmul's (see `abi`).
pub const MATMUL_NOTE: &str = "matmul";

/// One operand or the destination as the kernel sees it: first element, row stride and
/// column stride (in elements).
struct KernelMat<'ctx> {
    ptr: PointerValue<'ctx>,
    rs: IntValue<'ctx>,
    cs: IntValue<'ctx>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// Whether library calls (`matmul` for now) may use rayon's pool. The serial backend
    /// never does; the `cpu-par` backend switches this on.
    fn parallel_library(&self) -> bool {
        self.parallel
    }

    /// `i32 vr_cpu_matmul(ctx, elem, m, n, k, dst, rs, cs, a, rs, cs, b, rs, cs, parallel)`,
    /// declared on first use.
    fn matmul_kernel(&self) -> inkwell::values::FunctionValue<'ctx> {
        if let Some(f) = self.module.get_function(MATMUL) {
            return f;
        }
        let (ptr, i64t, i32t) = (self.ptr_type(), self.cx.i64_type(), self.cx.i32_type());
        let mut params: Vec<inkwell::types::BasicMetadataTypeEnum<'ctx>> = vec![
            ptr.into(),
            i64t.into(),
            i64t.into(),
            i64t.into(),
            i64t.into(),
        ];
        for _ in 0..3 {
            params.extend([
                inkwell::types::BasicMetadataTypeEnum::from(ptr),
                i64t.into(),
                i64t.into(),
            ]);
        }
        params.push(i32t.into());
        self.module.add_function(
            MATMUL,
            i32t.fn_type(&params, false),
            Some(Linkage::External),
        )
    }

    /// `(matmul A B)`: a scalar for two vectors, else a fresh array.
    pub(crate) fn matmul(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        lhs: &Expr,
        rhs: &Expr,
    ) -> VrResult<Operand<'ctx>> {
        let (a, _) = self.array_arg(g, lhs)?;
        let (b, _) = self.array_arg(g, rhs)?;
        let elem = a.ty.elem;
        if elem != b.ty.elem || !(1..=2).contains(&a.ty.ndims) || !(1..=2).contains(&b.ty.ndims) {
            return Err(self.type_err(g, format!("`matmul` of {} and {}", a.ty, b.ty)));
        }
        let mt = self.mem_type(elem, &g.f.name)?;
        // Inner extents: A's last, B's first.
        let ka = *a.dims.last().expect("rank checked");
        let kb = b.dims[0];
        let same = self
            .builder
            .build_int_compare(IntPredicate::EQ, ka, kb, "")?;
        let shapes: Vec<IntValue<'ctx>> = a.dims.iter().chain(&b.dims).copied().collect();
        let ranks = (
            self.i64c(a.dims.len() as i64),
            self.i64c(b.dims.len() as i64),
            self.i64c(-1),
        );
        self.check_noted(
            g,
            same,
            ErrorCode::ShapeMismatch,
            None,
            Some(ranks),
            Some((MATMUL_NOTE, &shapes)),
        )?;
        let (zero, one) = (self.i64c(0), self.i64c(1));
        // A as m x k, B as k x n.
        let (m, am) = match a.ty.ndims {
            2 => (
                a.dims[0],
                KernelMat {
                    ptr: a.data,
                    rs: a.strides[0],
                    cs: a.strides[1],
                },
            ),
            _ => (
                one,
                KernelMat {
                    ptr: a.data,
                    rs: zero,
                    cs: a.strides[0],
                },
            ),
        };
        let (n, bm) = match b.ty.ndims {
            2 => (
                b.dims[1],
                KernelMat {
                    ptr: b.data,
                    rs: b.strides[0],
                    cs: b.strides[1],
                },
            ),
            _ => (
                one,
                KernelMat {
                    ptr: b.data,
                    rs: b.strides[0],
                    cs: zero,
                },
            ),
        };
        let (out, dm) = match (a.ty.ndims, b.ty.ndims) {
            (1, 1) => {
                let slot = g.alloca_builder.build_alloca(mt, "dot")?;
                let dm = KernelMat {
                    ptr: slot,
                    rs: zero,
                    cs: zero,
                };
                (None, dm)
            }
            (2, 2) => {
                let ty = ArrayType::new(elem, 2, fresh_layout(a.ty.layout));
                let out = self.alloc_with_dims(g, ty, &[m, n])?;
                let dm = KernelMat {
                    ptr: out.data,
                    rs: out.strides[0],
                    cs: out.strides[1],
                };
                (Some(out), dm)
            }
            (2, 1) => {
                let ty = ArrayType::new(elem, 1, fresh_layout(a.ty.layout));
                let out = self.alloc_with_dims(g, ty, &[m])?;
                let dm = KernelMat {
                    ptr: out.data,
                    rs: out.strides[0],
                    cs: zero,
                };
                (Some(out), dm)
            }
            _ => {
                let ty = ArrayType::new(elem, 1, fresh_layout(b.ty.layout));
                let out = self.alloc_with_dims(g, ty, &[n])?;
                let dm = KernelMat {
                    ptr: out.data,
                    rs: zero,
                    cs: out.strides[0],
                };
                (Some(out), dm)
            }
        };
        let kernel = self.matmul_kernel();
        let parallel = self
            .cx
            .i32_type()
            .const_int(self.parallel_library() as u64, false);
        let call = self.builder.build_call(
            kernel,
            &[
                g.ctx_ptr.into(),
                self.i64c(elem_code(elem)).into(),
                m.into(),
                n.into(),
                ka.into(),
                dm.ptr.into(),
                dm.rs.into(),
                dm.cs.into(),
                am.ptr.into(),
                am.rs.into(),
                am.cs.into(),
                bm.ptr.into(),
                bm.rs.into(),
                bm.cs.into(),
                parallel.into(),
            ],
            "matmul",
        )?;
        let ValueKind::Basic(status) = call.try_as_basic_value() else {
            return Err(self.type_err(g, "matmul kernel without a status".into()));
        };
        let ok = self.builder.build_int_compare(
            IntPredicate::EQ,
            status.into_int_value(),
            self.cx.i32_type().const_zero(),
            "",
        )?;
        // The kernel noted why in the arena; AllocFailed reports that message.
        self.check(g, ok, ErrorCode::AllocFailed, None, None)?;
        match out {
            Some(out) => Ok(Operand::Array(out)),
            None => {
                let raw = self.builder.build_load(mt, dm.ptr, "dot")?;
                Ok(Operand::Scalar(Val {
                    v: self.mem_to_reg(raw, elem)?,
                    ty: elem,
                }))
            }
        }
    }

    /// `(matmul A B)` where a scalar is expected: the dot product of two vectors.
    pub(crate) fn matmul_scalar(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        args: &[Expr],
    ) -> VrResult<Val<'ctx>> {
        let [lhs, rhs] = args else {
            return Err(self.type_err(g, format!("`matmul` with {} arguments", args.len())));
        };
        match self.matmul(g, lhs, rhs)? {
            Operand::Scalar(v) => Ok(v),
            // Only reached where an array-valued expression is indexed directly.
            Operand::Array(_) => Err(unsupported(
                "indexing of an array-valued `matmul`",
                &g.f.name,
            )),
        }
    }

    /// `(matmul A B)` where an array is expected.
    pub(crate) fn matmul_array(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        args: &[Expr],
    ) -> VrResult<ArrayView<'ctx>> {
        let [lhs, rhs] = args else {
            return Err(self.type_err(g, format!("`matmul` with {} arguments", args.len())));
        };
        match self.matmul(g, lhs, rhs)? {
            Operand::Array(a) => Ok(a),
            Operand::Scalar(_) => Err(self.type_err(g, "a dot product used as an array".into())),
        }
    }

    /// `(transpose A)`: a fresh array, `strided` becoming `row`.
    pub(crate) fn transpose(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        args: &[Expr],
    ) -> VrResult<ArrayView<'ctx>> {
        let [arg] = args else {
            return Err(self.type_err(g, format!("`transpose` with {} arguments", args.len())));
        };
        let (src, name) = self.array_arg(g, arg)?;
        let layout: Layout = fresh_layout(src.ty.layout);
        match src.ty.ndims {
            1 => self.copy_of(g, &src, layout),
            2 => {
                let ty = ArrayType::new(src.ty.elem, 2, layout);
                let out = self.alloc_with_dims(g, ty, &[src.dims[1], src.dims[0]])?;
                let mt = self.mem_type(src.ty.elem, &g.f.name)?;
                let o = out.clone();
                self.nd_loop(g, &out.dims, &mut |cg, g, idx| {
                    let from = cg.elem_addr(g, &src, &[idx[1], idx[0]])?;
                    let v = cg.builder.build_load(mt, from, "")?;
                    cg.builder.build_store(cg.elem_addr(g, &o, idx)?, v)?;
                    Ok(())
                })?;
                Ok(out)
            }
            r => Err(self.type_err(g, format!("`transpose` of `{name}` of rank {r}"))),
        }
    }
}
