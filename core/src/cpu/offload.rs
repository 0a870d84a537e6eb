//! The compiled side of offloading (`runtime::offload`): [`vr_cpu_offload`], the helper
//! that generated code calls at the plan's actions (see `codegen/offload.rs`), and the
//! [`ActionEnv`] it gives the engine over the variables' addresses.
//!
//! A call's engine session lives in its [`CallCtx`] (`offload`); parfor workers and
//! calls of a module compiled without an engine have none: tasks are declined and
//! synchronisations do nothing (their enclosing statement was synchronised as a whole).

use super::abi::{ArrayDesc, CallCtx, ErrorCode};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::offload::{Action, ActionEnv, HostArray, OffloadSession, Outcome};
use crate::runtime::value::Scalar;
use crate::vrir::types::{Layout, ScalarType, Type};
use num_complex::{Complex32, Complex64};
use std::collections::HashMap;
use std::sync::Arc;

/// One call's engine state, held by its [`CallCtx`].
pub struct OffloadCall {
    pub session: Box<dyn OffloadSession>,
    pub actions: Arc<HashMap<u32, Action>>,
    /// The error an action reported (decoded by `CallCtx::error` for
    /// [`ErrorCode::Offload`]).
    pub error: Option<VrError>,
}

impl std::fmt::Debug for OffloadCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffloadCall")
            .field("actions", &self.actions.len())
            .field("error", &self.error)
            .finish()
    }
}

/// Status codes of [`vr_cpu_offload`].
const OK: i32 = 0;
const FAILED: i32 = 1;
const DECLINED: i32 = 2;

/// Run action `action` with the variables at `env` (two pointers per variable: storage,
/// "assigned" flag or null). Returns 0 (go on), 1 (error recorded in `ctx`) or 2 (task
/// declined: run the statement's code).
///
/// # Safety
/// `ctx` is the call's context; `env` holds the slots generated code filled for this
/// action's variables, valid for the duration of the call.
pub unsafe extern "C" fn vr_cpu_offload(
    ctx: *mut CallCtx,
    action: i64,
    env: *const *mut u8,
) -> i32 {
    let Some(ctx) = ctx.as_mut() else {
        return DECLINED;
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let call = ctx.offload.as_mut()?;
        let a = call.actions.get(&(action as u32))?.clone();
        let mut e = Env {
            action: &a,
            env,
            arena: &mut ctx.arena,
        };
        Some(call.session.act(a.id, &mut e))
    }));
    let outcome = match run {
        Ok(Some(o)) => o,
        // No session here, or an action the plan does not know: the CPU code runs.
        // (For a synchronisation, "declined" just goes on.)
        Ok(None) => return DECLINED,
        Err(_) => Outcome::Failed(VrError::new(
            ErrorKind::Internal,
            "offload engine panicked (the call stops; nothing was left half-written on the host)",
        )),
    };
    match outcome {
        Outcome::Done => OK,
        Outcome::Declined => DECLINED,
        Outcome::Failed(e) => {
            if let Some(call) = ctx.offload.as_mut() {
                call.error = Some(e);
            }
            ctx.code = ErrorCode::Offload as i32;
            FAILED
        }
    }
}

/// The variables of one action over the addresses generated code passed.
struct Env<'a> {
    action: &'a Action,
    env: *const *mut u8,
    arena: &'a mut super::abi::Arena,
}

impl Env<'_> {
    fn slot(&self, k: usize, j: usize) -> *mut u8 {
        // SAFETY: generated code filled 2 slots per variable of the action.
        unsafe { *self.env.add(2 * k + j) }
    }

    fn assigned(&self, k: usize) -> bool {
        let flag = self.slot(k, 1);
        // SAFETY: a flag slot is null or points to the variable's `i1` flag (one byte).
        flag.is_null() || unsafe { *flag != 0 }
    }

    fn set_assigned(&mut self, k: usize) {
        let flag = self.slot(k, 1);
        if !flag.is_null() {
            // SAFETY: as in `assigned`.
            unsafe { *flag = 1 };
        }
    }

    fn ty(&self, k: usize) -> &Type {
        &self.action.vars[k].1
    }
}

impl ActionEnv for Env<'_> {
    fn scalar(&self, k: usize) -> Option<Scalar> {
        let Type::Scalar { elem } = self.ty(k) else {
            return None;
        };
        let p = self.slot(k, 0);
        if p.is_null() || !self.assigned(k) {
            return None;
        }
        // SAFETY: p is the scalar's slot in its memory representation.
        unsafe {
            Some(match elem {
                ScalarType::Bool => Scalar::Bool(*p != 0),
                ScalarType::I32 => Scalar::I32(*(p as *const i32)),
                ScalarType::I64 => Scalar::I64(*(p as *const i64)),
                ScalarType::F32 => Scalar::F32(*(p as *const f32)),
                ScalarType::F64 => Scalar::F64(*(p as *const f64)),
                ScalarType::C64 => {
                    let q = p as *const f32;
                    Scalar::C64(Complex32::new(*q, *q.add(1)))
                }
                ScalarType::C128 => {
                    let q = p as *const f64;
                    Scalar::C128(Complex64::new(*q, *q.add(1)))
                }
            })
        }
    }

    fn set_scalar(&mut self, k: usize, v: Scalar) {
        let p = self.slot(k, 0);
        if p.is_null() {
            return;
        }
        // SAFETY: p is the scalar's slot; the engine writes the variable's own type.
        unsafe {
            match v {
                Scalar::Bool(b) => *p = b as u8,
                Scalar::I32(x) => *(p as *mut i32) = x,
                Scalar::I64(x) => *(p as *mut i64) = x,
                Scalar::F32(x) => *(p as *mut f32) = x,
                Scalar::F64(x) => *(p as *mut f64) = x,
                Scalar::C64(c) => {
                    let q = p as *mut f32;
                    *q = c.re;
                    *q.add(1) = c.im;
                }
                Scalar::C128(c) => {
                    let q = p as *mut f64;
                    *q = c.re;
                    *q.add(1) = c.im;
                }
            }
        }
        self.set_assigned(k);
    }

    fn value(&self, k: usize) -> Scalar {
        let ty = self.action.values.get(k).map_or(ScalarType::I64, |v| v.1);
        // SAFETY: generated code stored one 8-byte value per entry after the variables.
        let raw = unsafe { *(self.env.add(2 * self.action.vars.len() + k) as *const u64) };
        match ty {
            ScalarType::Bool => Scalar::Bool(raw != 0),
            ScalarType::I32 => Scalar::I32(raw as i64 as i32),
            ScalarType::F32 => Scalar::F32(f64::from_bits(raw) as f32),
            ScalarType::F64 => Scalar::F64(f64::from_bits(raw)),
            _ => Scalar::I64(raw as i64),
        }
    }

    fn array(&self, k: usize) -> Option<HostArray> {
        let Type::Array(t) = self.ty(k) else {
            return None;
        };
        let p = self.slot(k, 0) as *const ArrayDesc;
        if p.is_null() || !self.assigned(k) {
            return None;
        }
        let n = t.ndims as usize;
        // SAFETY: p is the variable's descriptor; its vectors hold ndims values.
        unsafe {
            let d = &*p;
            Some(HostArray {
                data: d.data,
                elem: t.elem,
                dims: std::slice::from_raw_parts(d.dims, n).to_vec(),
                strides: std::slice::from_raw_parts(d.strides, n).to_vec(),
            })
        }
    }

    fn new_array(&mut self, k: usize, dims: &[i64]) -> VrResult<HostArray> {
        let Type::Array(t) = self.ty(k).clone() else {
            return Err(VrError::new(
                ErrorKind::Internal,
                "offload: new array for a scalar",
            ));
        };
        let target = self.slot(k, 0) as *mut ArrayDesc;
        if target.is_null() || self.slot(k, 1).is_null() {
            // Only array locals (a descriptor of their own with a flag) can be rebound.
            return Err(VrError::new(
                ErrorKind::Internal,
                "offload: an array parameter cannot be given a new array",
            ));
        }
        let esize = crate::runtime::offload::elem_size(t.elem);
        let made = self
            .arena
            .new_array(dims, esize, t.layout == Layout::Col)
            .map_err(VrError::runtime)?;
        let n = t.ndims as usize;
        // SAFETY: `made` is a fresh descriptor in the arena; `target` is the local's
        // descriptor buffer with room for ndims dims and strides.
        let out = unsafe {
            let src = &*made;
            let dst = &mut *target;
            std::ptr::copy_nonoverlapping(src.dims, dst.dims as *mut i64, n);
            std::ptr::copy_nonoverlapping(src.strides, dst.strides as *mut i64, n);
            dst.data = src.data;
            HostArray {
                data: src.data,
                elem: t.elem,
                dims: std::slice::from_raw_parts(src.dims, n).to_vec(),
                strides: std::slice::from_raw_parts(src.strides, n).to_vec(),
            }
        };
        self.set_assigned(k);
        Ok(out)
    }

    fn restore_array(&mut self, k: usize, prev: Option<&HostArray>) {
        let Type::Array(t) = self.ty(k).clone() else {
            return;
        };
        let target = self.slot(k, 0) as *mut ArrayDesc;
        let flag = self.slot(k, 1);
        if target.is_null() || flag.is_null() {
            // Not a local that `new_array` can rebind: nothing was changed.
            return;
        }
        match prev {
            Some(a) if a.dims.len() == t.ndims as usize => {
                let n = t.ndims as usize;
                // SAFETY: `target` is the local's descriptor buffer with room for ndims
                // dims and strides (as in `new_array`); `a` holds ndims of each.
                unsafe {
                    let dst = &mut *target;
                    std::ptr::copy_nonoverlapping(a.dims.as_ptr(), dst.dims as *mut i64, n);
                    std::ptr::copy_nonoverlapping(a.strides.as_ptr(), dst.strides as *mut i64, n);
                    dst.data = a.data;
                }
                self.set_assigned(k);
            }
            // SAFETY: a flag slot points to the variable's `i1` flag (one byte).
            _ => unsafe { *flag = 0 },
        }
    }
}
