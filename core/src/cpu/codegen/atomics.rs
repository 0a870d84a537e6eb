//! `atomic-add` and `atomic-cas` as LLVM atomic instructions (sequentially consistent):
//! `atomicrmw add` for integers, `atomicrmw fadd` for floats (LLVM expands it to a
//! compare-exchange loop where the target has no native one), `cmpxchg` for integers
//! and bools (a bool element is one byte, 0 or 1). The element is addressed as an
//! ordinary bounds-checked access (no `:neg`, no `:flat`), so an index out of bounds
//! fails with the interpreter's error. Evaluation order: the value (or the expected and
//! new values), then the indices, then the bounds check; the interpreter evaluates the
//! indices first, which differs only when both an index and a value expression fail.

use super::{CodeGen, FnGen, Val};
use crate::runtime::error::VrResult;
use crate::vrir::ast::{Expr, IndexFlags};
use crate::vrir::types::ScalarType;
use inkwell::llvm_sys;
use inkwell::values::{AsValueRef, FloatValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    /// `(atomic-add A i... :value v)`: adds v to the element, yields the old element.
    pub(crate) fn atomic_add(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &str,
        indices: &[Expr],
        value: &Expr,
    ) -> VrResult<Val<'ctx>> {
        // In a parfor body whose chunks accumulate this site privately (`par_atomics.rs`).
        if let Some(sum) = self.chunk_sum_of(value) {
            return self.chunk_sum_add(g, array, indices, value, sum);
        }
        let v = self.expr(g, value)?;
        let (ptr, elem) = self.element_ptr(g, array, indices, IndexFlags::default())?;
        if v.ty != elem {
            return Err(self.type_err(g, format!("atomic-add of {} to `{array}` of {elem}", v.ty)));
        }
        let old = match elem {
            ScalarType::I32 | ScalarType::I64 => self
                .builder
                .build_atomicrmw(
                    AtomicRMWBinOp::Add,
                    ptr,
                    v.int(),
                    AtomicOrdering::SequentiallyConsistent,
                )?
                .into(),
            ScalarType::F32 | ScalarType::F64 => {
                // inkwell's build_atomicrmw takes integers only: build the fadd directly.
                // SAFETY: the builder is positioned (the element address was just built
                // with it); pointer and value are live values of this function.
                unsafe {
                    let raw = llvm_sys::core::LLVMBuildAtomicRMW(
                        self.builder.as_mut_ptr(),
                        llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                        ptr.as_value_ref(),
                        v.float().as_value_ref(),
                        llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                        0,
                    );
                    FloatValue::new(raw).into()
                }
            }
            other => return Err(self.type_err(g, format!("atomic-add on elements of {other}"))),
        };
        Ok(Val { v: old, ty: elem })
    }

    /// `(atomic-cas A i... :expected e :new w)`: stores w when the element equals e,
    /// yields the old element.
    pub(crate) fn atomic_cas(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        array: &str,
        indices: &[Expr],
        expected: &Expr,
        new: &Expr,
    ) -> VrResult<Val<'ctx>> {
        let e = self.expr(g, expected)?;
        let w = self.expr(g, new)?;
        let (ptr, elem) = self.element_ptr(g, array, indices, IndexFlags::default())?;
        if e.ty != elem || w.ty != elem {
            return Err(self.type_err(
                g,
                format!("atomic-cas of {} and {} on `{array}` of {elem}", e.ty, w.ty),
            ));
        }
        if !matches!(elem, ScalarType::Bool | ScalarType::I32 | ScalarType::I64) {
            return Err(self.type_err(g, format!("atomic-cas on elements of {elem}")));
        }
        let (e_mem, w_mem) = (self.reg_to_mem(e)?, self.reg_to_mem(w)?);
        let pair = self.builder.build_cmpxchg(
            ptr,
            e_mem.into_int_value(),
            w_mem.into_int_value(),
            AtomicOrdering::SequentiallyConsistent,
            AtomicOrdering::SequentiallyConsistent,
        )?;
        let old = self
            .builder
            .build_extract_value(pair, 0, "old")?
            .into_int_value();
        let old = if elem == ScalarType::Bool {
            self.builder
                .build_int_compare(IntPredicate::NE, old, old.get_type().const_zero(), "")?
        } else {
            old
        };
        Ok(Val {
            v: old.into(),
            ty: elem,
        })
    }
}
