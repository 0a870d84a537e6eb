//! Library tasks (`gpu/library`) carried out for compiled code: operands read from the
//! action's variables before the target is given its new array, extents checked on the
//! host (a mismatch, an empty result or an out-of-range slice is declined: the
//! statement's CPU code then raises the interpreter's error or builds the empty array),
//! the result allocated in the call's memory and bound in VRRuntime for overwrite (no
//! upload), the kernel enqueued without waiting. Scalar results (whole-array reductions,
//! the dot product) are read back at once, since CPU code reads them next.

use super::super::kernel::Param;
use super::super::library::{source::TILE, Gather, LibKernel, LibKind, SliceDim};
use super::super::opencl::{self, Arg};
use super::super::runtime::{Access, Bound, Device};
use super::{counters, device_error, Calibration, Pending, Session, Step, Stop, SLOT_INIT};
use super::super::placement::{self, estimate::Cost, Choice, Task};
use crate::runtime::error::VrError;
use crate::runtime::offload::{elem_size, ActionEnv, HostArray, Outcome};
use crate::runtime::value::{contiguous_strides, Scalar};
use crate::vrir::ast::ReduceOp;
use crate::vrir::types::{Layout, ScalarType, Type};
use opencl3::memory::Buffer;
use opencl3::program::Program;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Work items per group of the reductions (at most the device's limit).
const REDUCE_GROUP: usize = 64;
/// Work groups of one reduction stage, at most.
const REDUCE_GROUPS: usize = 1024;
/// Elements per work item a reduction stage aims at.
const REDUCE_PER_ITEM: usize = 16;
/// Work items per group of the one-item-per-element kernels (the global size is rounded
/// up to it; the kernels ignore the extra items).
const ELEMENT_GROUP: usize = 64;

/// `n` rounded up to a multiple of `k`.
fn round_up(n: usize, k: usize) -> usize {
    n.div_ceil(k) * k
}

/// A kernel argument as the launch builds it, before buffers are looked up.
enum Spec {
    /// The buffer of a buffer-table row.
    Row(usize),
    /// The launch's error slot (a shared unused one when the kernel cannot fail).
    Slot,
    /// A scratch buffer of the launch (reductions' partial results).
    Scratch(usize),
    I64(i64),
    I32(i32),
    F64(f64),
    F32(f32),
    U8(u8),
    Local(usize),
}

/// An array a launch binds, and how the kernel uses it.
struct Use {
    arr: HostArray,
    name: String,
    access: Access,
}

/// The action variables a library task reads as arrays (its operands).
fn reads_of(k: &LibKernel) -> Vec<usize> {
    (1..k.vars.len())
        .filter(|i| matches!(k.vars[*i].1, Type::Array(_)))
        .collect()
}

/// `p, off, dims..., strides..., set` of a bound array (the parfor convention).
fn array_specs(b: Bound, a: &HostArray, out: &mut Vec<Spec>) {
    out.push(Spec::Row(b.buffer));
    out.push(Spec::I64(b.offset));
    out.extend(a.dims.iter().map(|d| Spec::I64(*d)));
    out.extend(a.strides.iter().map(|s| Spec::I64(*s)));
    out.push(Spec::I32(1));
}

/// Whether `a`'s positions in the storage order of `layout` are its memory order.
fn contiguous_in(a: &HostArray, layout: Layout) -> bool {
    let dims: Vec<usize> = a.dims.iter().map(|d| *d as usize).collect();
    let want: Vec<i64> = contiguous_strides(&dims, layout)
        .into_iter()
        .map(|s| s as i64)
        .collect();
    want == a.strides
}

/// A scalar of type `t` from its bytes on the device.
fn scalar_from(t: ScalarType, bytes: [u8; 8]) -> Scalar {
    match t {
        ScalarType::I32 => Scalar::I32(i32::from_ne_bytes(bytes[..4].try_into().unwrap())),
        ScalarType::F32 => Scalar::F32(f32::from_ne_bytes(bytes[..4].try_into().unwrap())),
        ScalarType::F64 => Scalar::F64(f64::from_ne_bytes(bytes)),
        ScalarType::Bool => Scalar::Bool(bytes[0] != 0),
        _ => Scalar::I64(i64::from_ne_bytes(bytes)),
    }
}

/// The outcome of the host-side checks: run it, or leave it to the CPU.
enum Prepared<T> {
    Run(T),
    Decline(Option<String>),
}

impl Session {
    pub(super) fn library(
        &mut self,
        k: &Arc<LibKernel>,
        function: &str,
        env: &mut dyn ActionEnv,
    ) -> Step<Outcome> {
        // The target gets a new array before the kernel is enqueued. When the task runs
        // on the CPU after all (a refused launch, a device fault), the variable gets its
        // old array back: the statement's CPU code may read it (`a = a + 1`).
        let target = matches!(k.vars[0].1, Type::Array(_)).then(|| env.array(0));
        let r = self.library_task(k, function, env);
        if let (Err(Stop::Refused(_) | Stop::Fault { .. }), Some(t)) = (&r, &target) {
            env.restore_array(0, t.as_ref());
        }
        match r {
            Err(Stop::Refused(why)) => self.decline_reads(env, &reads_of(k), Some(why)),
            r => r,
        }
    }

    fn library_task(
        &mut self,
        k: &Arc<LibKernel>,
        function: &str,
        env: &mut dyn ActionEnv,
    ) -> Step<Outcome> {
        // Operands first: the target may be one of them, and gets a new array below.
        let reads = reads_of(k);
        let inputs: Vec<Option<HostArray>> = (0..k.vars.len())
            .map(|i| {
                if reads.contains(&i) {
                    env.array(i)
                } else {
                    None
                }
            })
            .collect();
        let Some(rt) = self.runtime() else {
            return Ok(Outcome::Declined);
        };
        let gpu = rt.device().gpu.clone();
        if k.fp64 && !gpu.info.fp64 {
            let why = format!(
                "gpu: {} lacks cl_khr_fp64: library operations on f64 run on the CPU",
                gpu.info.describe()
            );
            return self.decline_reads(env, &reads, Some(why));
        }
        // Unassigned operands or scalars: the CPU code raises the interpreter's error.
        let unassigned_scalar = k
            .params
            .iter()
            .any(|p| matches!(p, Param::Scalar { var, .. } if env.scalar(*var).is_none()));
        if reads.iter().any(|i| inputs[*i].is_none()) || unassigned_scalar {
            return self.decline_reads(env, &reads, None);
        }
        if let Some(c) = self.model.clone() {
            let choice = self.place_library(k, &inputs, &c);
            self.bump(|s| {
                s.placed_device += choice.device as u64;
                s.placed_cpu += !choice.device as u64;
                s.last_choice = Some(choice.describe());
            });
            if !choice.device {
                return self.decline_reads(env, &reads, None);
            }
        }
        let program = match gpu.program(&k.source) {
            Ok(p) => p,
            Err(why) => {
                let why = format!("gpu: {} of `{function}` runs on the CPU: {why}", k.what);
                return self.decline_reads(env, &reads, Some(why));
            }
        };
        let arr = |i: usize| inputs[i].clone().expect("checked above");
        let r = match &k.kind {
            LibKind::Map { .. } => self.map(k, function, env, &inputs, &program),
            LibKind::Reduce { op, elem } => self.reduce(k, env, arr(1), *op, *elem, &program),
            LibKind::AxisReduce { op, axis } => {
                self.axis_reduce(k, env, arr(1), *op, *axis, &program)
            }
            LibKind::Matmul { scalar } => self.matmul(k, env, arr(1), arr(2), *scalar, &program),
            LibKind::Gather(g) => self.gather(k, env, arr(1), g, &program),
        }?;
        match r {
            Prepared::Run(()) => Ok(Outcome::Done),
            Prepared::Decline(why) => self.decline_reads(env, &reads, why),
        }
    }

    /// The placement model's estimate for library task `k` on these operands: its work
    /// from the operands' extents (an element-wise tree or a reduction one operation an
    /// element, a product `2 m k n`), its bytes the operands' and the result's.
    fn place_library(
        &self,
        k: &LibKernel,
        inputs: &[Option<HostArray>],
        c: &Calibration,
    ) -> Choice {
        let (mut up, mut down_now, mut bytes, mut elems) = (0u64, 0u64, 0u64, 1i64);
        for a in inputs.iter().flatten() {
            let (lo, hi) = a.byte_range();
            let (lacks, only_device) = match self.rt.as_ref() {
                Some(rt) => rt.bytes_to_move(lo, hi),
                None => ((hi - lo) as u64, 0),
            };
            up += lacks;
            down_now += only_device;
            bytes += (a.len().max(0) as u64) * a.elem_size() as u64;
            elems = elems.max(a.len());
        }
        let elem_bytes = match &k.vars[0].1 {
            Type::Array(a) => elem_size(a.elem) as f64,
            _ => 0.0,
        };
        let (ops, items, result) = match (&k.kind, inputs.get(1).and_then(|a| a.as_ref()), inputs.get(2).and_then(|a| a.as_ref())) {
            (LibKind::Matmul { .. }, Some(a), Some(b)) => {
                let (m, kk) = (a.dims.first().copied().unwrap_or(1), a.dims.last().copied().unwrap_or(1));
                let n = if b.dims.len() > 1 { b.dims[1] } else { 1 };
                let mn = (m * n).max(1) as f64;
                (2.0 * mn * kk.max(1) as f64, mn, mn * elem_bytes)
            }
            (LibKind::Reduce { .. }, _, _) => (elems as f64, elems as f64, 0.0),
            _ => (elems as f64, elems as f64, elems as f64 * elem_bytes),
        };
        let task = Task {
            cost: Cost { ops, bytes: bytes as f64 + result, guessed: false },
            footprint: bytes as f64 + result,
            items,
            outer: items,
            up: up as f64,
            down_after: result,
            down_now: down_now as f64,
            first: !self.launched_in_run,
            syncs: 0.0,
            cpu_syncs: 0.0,
        };
        placement::choose(&task, c)
    }

    /// Decline a library task: its operands come home (the CPU only reads them; the
    /// target gets a new array).
    pub(super) fn decline_reads(
        &mut self,
        env: &mut dyn ActionEnv,
        arrays: &[usize],
        why: Option<String>,
    ) -> Step<Outcome> {
        counters().declined.fetch_add(1, Ordering::Relaxed);
        self.bump(|s| s.declined += 1);
        if let Some(w) = why {
            self.note(w);
        }
        self.check_pending()?;
        if let Some(rt) = self.rt.as_mut() {
            let before = rt.stats();
            for k in arrays {
                if let Some(a) = env.array(*k) {
                    rt.host_access(&a, false)
                        .map_err(|e| device_error("bringing an array home", e))?;
                }
            }
            let now = rt.stats();
            self.account(before, now);
        }
        Ok(Outcome::Declined)
    }

    /// The target's new array (after the operands were read).
    fn result(&mut self, env: &mut dyn ActionEnv, dims: &[i64]) -> Result<HostArray, VrError> {
        env.new_array(0, dims).map_err(|e| e.with_line(None))
    }

    /// Bind `uses` in VRRuntime's tables (reads uploaded only where the host holds the
    /// only fresh copy; results bound for overwrite), then enqueue `entry` with the
    /// arguments `specs` builds from the bindings, and record the task. `scratch`: buffers
    /// outside the tables the kernel also uses.
    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &mut self,
        k: &LibKernel,
        function: &str,
        program: &Program,
        entry: &str,
        uses: &[Use],
        specs: impl FnOnce(&[Bound]) -> Vec<Spec>,
        scratch: &[&Buffer<u8>],
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Step<()> {
        self.check_pending()?;
        let rt = self.rt.as_mut().expect("runtime made by the caller");
        let before = rt.stats();
        // Writes first, then everything again in order (see the parfor's binding in
        // engine.rs: deferred copies made before a read, final rows after merges).
        for u in uses
            .iter()
            .filter(|u| u.access != Access::Read)
            .chain(uses.iter().filter(|u| u.access == Access::Read))
        {
            rt.bind(&u.name, &u.arr, u.access)
                .map_err(|e| device_error("binding an array", e))?;
        }
        let mut bound = Vec::new();
        let mut written = Vec::new();
        for u in uses {
            let b = rt
                .bind(&u.name, &u.arr, u.access)
                .map_err(|e| device_error("binding an array", e))?;
            if u.access != Access::Read {
                written.push(b.buffer);
            }
            bound.push(b);
        }
        let slot = if k.sites.is_empty() {
            None
        } else {
            Some(
                rt.device()
                    .alloc_slot(&SLOT_INIT)
                    .map_err(|e| device_error("allocating an error slot", e))?,
            )
        };
        if self.dummy.is_none() {
            let d = rt
                .device()
                .alloc(8)
                .map_err(|e| device_error("allocating a buffer", e))?;
            self.dummy = Some(d);
        }
        let specs = specs(&bound);
        let rt = self.rt.as_ref().expect("runtime");
        let gpu = rt.device_ref().gpu.clone();
        let dummy = self.dummy.as_ref().expect("made above");
        let args: Vec<Arg> = specs
            .iter()
            .map(|s| match s {
                Spec::Row(r) => Arg::Buffer(rt.buffer(*r)),
                Spec::Slot => Arg::Buffer(slot.as_ref().unwrap_or(dummy)),
                Spec::Scratch(i) => Arg::Buffer(scratch[*i]),
                Spec::I64(v) => Arg::I64(*v),
                Spec::I32(v) => Arg::I32(*v),
                Spec::F64(v) => Arg::F64(*v),
                Spec::F32(v) => Arg::F32(*v),
                Spec::U8(v) => Arg::U8(*v),
                Spec::Local(b) => Arg::Local(*b),
            })
            .collect();
        // The kernel runs after the uploads it may read (on the transfer queue).
        let launched = rt
            .device_ref()
            .join_transfers()
            .and_then(|_| opencl::launch(&gpu, program, entry, &args, global, local));
        drop(args);
        let ev = match launched {
            Ok(ev) => ev,
            Err(e) if e.fault => return Err(device_error(&format!("launching {}", k.what), e)),
            // Refused (nothing ran): the CPU computes it.
            Err(e) => {
                return Err(Stop::Refused(format!(
                    "gpu: {} could not be launched ({e}): it runs on the CPU",
                    k.what
                )))
            }
        };
        let rt = self.rt.as_mut().expect("runtime");
        rt.launched(&k.what, &written);
        let now = rt.stats();
        self.account(before, now);
        self.launched_kernel(ev);
        if let Some(slot) = slot {
            self.pending.push(Pending {
                slot,
                sites: k.sites.clone(),
                function: function.to_string(),
            });
        }
        Ok(())
    }

    /// An element-wise tree: one work item per element of the result.
    fn map(
        &mut self,
        k: &LibKernel,
        function: &str,
        env: &mut dyn ActionEnv,
        inputs: &[Option<HostArray>],
        program: &Program,
    ) -> Step<Prepared<()>> {
        let arrays: Vec<&HostArray> = inputs.iter().flatten().collect();
        let dims = arrays[0].dims.clone();
        if arrays.iter().any(|a| a.dims != dims) {
            // A shape mismatch: the CPU code raises it.
            return Ok(Prepared::Decline(None));
        }
        let n: i64 = dims.iter().product();
        if n == 0 {
            return Ok(Prepared::Decline(None));
        }
        if n >= i32::MAX as i64 && !k.sites.is_empty() {
            return Ok(Prepared::Decline(Some(format!(
                "gpu: an element-wise operation of {n} elements that may fail (at most 2^31 - 1 on the GPU) runs on the CPU"
            ))));
        }
        let mut scalars = Vec::new();
        for p in &k.params {
            if let Param::Scalar { var, .. } = p {
                scalars.push(match env.scalar(*var).expect("checked by the caller") {
                    Scalar::Bool(b) => Spec::U8(b as u8),
                    Scalar::I32(x) => Spec::I32(x),
                    Scalar::I64(x) => Spec::I64(x),
                    Scalar::F32(x) => Spec::F32(x),
                    Scalar::F64(x) => Spec::F64(x),
                    _ => return Ok(Prepared::Decline(None)),
                });
            }
        }
        let out = self.result(env, &dims)?;
        let mut uses: Vec<Use> = Vec::new();
        for p in &k.params {
            if let Param::Array { var, .. } = p {
                uses.push(Use {
                    arr: inputs[*var].clone().expect("an operand"),
                    name: k.vars[*var].0.clone(),
                    access: Access::Read,
                });
            }
        }
        uses.push(Use {
            arr: out.clone(),
            name: k.vars[0].0.clone(),
            access: Access::Overwrite,
        });
        let params = k.params.clone();
        let specs = |b: &[Bound]| {
            let mut s = vec![Spec::Slot, Spec::I64(n)];
            s.extend(dims.iter().map(|d| Spec::I64(*d)));
            let mut arrays = 0;
            let mut scalars = scalars.into_iter();
            for p in &params {
                match p {
                    Param::Array { .. } => {
                        array_specs(b[arrays], &uses[arrays].arr, &mut s);
                        arrays += 1;
                    }
                    Param::Scalar { .. } => {
                        s.push(scalars.next().expect("one per scalar"));
                        s.push(Spec::I32(1));
                    }
                    Param::Range(_) => {}
                }
            }
            s.push(Spec::Row(b[arrays].buffer));
            s.push(Spec::I64(b[arrays].offset));
            s.extend(out.strides.iter().map(|x| Spec::I64(*x)));
            s
        };
        let global = [round_up(n as usize, ELEMENT_GROUP)];
        self.enqueue(
            k,
            function,
            program,
            &k.name,
            &uses,
            specs,
            &[],
            &global,
            None,
        )?;
        Ok(Prepared::Run(()))
    }

    /// A whole-array reduction: stages of partial results until one remains, read back
    /// into the scalar target.
    fn reduce(
        &mut self,
        k: &LibKernel,
        env: &mut dyn ActionEnv,
        x: HostArray,
        op: ReduceOp,
        elem: ScalarType,
        program: &Program,
    ) -> Step<Prepared<()>> {
        let count = x.len() as usize;
        if count == 0 {
            // An empty sum or product is its identity, an empty amin/amax an error: the
            // CPU code gives either.
            return Ok(Prepared::Decline(None));
        }
        let layout = match &k.vars[1].1 {
            Type::Array(a) if a.layout == Layout::Col => Layout::Col,
            _ => Layout::Row,
        };
        let rt = self.rt.as_mut().expect("runtime");
        let max_group = rt.device().gpu.info.max_work_group.max(1);
        let group = REDUCE_GROUP.min(max_group);
        let es = elem_size(elem);
        let ordered = super::super::library::source::ordered(op, elem);
        let stage = |n: usize| {
            let groups = n.div_ceil(group * REDUCE_PER_ITEM).clamp(1, REDUCE_GROUPS);
            let chunk = n.div_ceil(groups * group);
            (groups, chunk)
        };
        // First stage: the array, bound in the tables.
        let (groups, chunk) = stage(count);
        let mut partial = rt
            .device()
            .alloc(groups * es)
            .map_err(|e| device_error("allocating partial results", e))?;
        let uses = [Use {
            arr: x.clone(),
            name: k.vars[1].0.clone(),
            access: Access::Read,
        }];
        let contig = contiguous_in(&x, layout) && x.strides.iter().all(|s| *s > 0);
        let specs = |b: &[Bound]| {
            let mut s = vec![Spec::Row(b[0].buffer), Spec::I64(b[0].offset)];
            s.extend(x.dims.iter().map(|d| Spec::I64(*d)));
            s.extend(x.strides.iter().map(|d| Spec::I64(*d)));
            s.push(Spec::I32((layout == Layout::Col) as i32));
            s.push(Spec::I32(contig as i32));
            s.push(Spec::I64(count as i64));
            s.push(Spec::I64(if ordered { chunk as i64 } else { 0 }));
            s.push(Spec::Scratch(0));
            s.push(Spec::Local(group * es));
            s
        };
        let function = String::new();
        self.enqueue(
            k,
            &function,
            program,
            "vr_reduce_first",
            &uses,
            specs,
            &[&partial],
            &[groups * group],
            Some(&[group]),
        )?;
        let mut n = groups;
        while n > 1 {
            let (groups, chunk) = stage(n);
            let rt = self.rt.as_mut().expect("runtime");
            let next = rt
                .device()
                .alloc(groups * es)
                .map_err(|e| device_error("allocating partial results", e))?;
            let specs = |_: &[Bound]| {
                vec![
                    Spec::Scratch(0),
                    Spec::I64(n as i64),
                    Spec::I64(if ordered { chunk as i64 } else { 0 }),
                    Spec::Scratch(1),
                    Spec::Local(group * es),
                ]
            };
            self.enqueue(
                k,
                &function,
                program,
                "vr_reduce_next",
                &[],
                specs,
                &[&partial, &next],
                &[groups * group],
                Some(&[group]),
            )?;
            partial = next;
            n = groups;
        }
        let mut bytes = [0u8; 8];
        let rt = self.rt.as_mut().expect("runtime");
        rt.device()
            .download_into(&partial, &mut bytes[..es])
            .map_err(|e| device_error("reading a reduction's result", e))?;
        env.set_scalar(0, scalar_from(elem, bytes));
        Ok(Prepared::Run(()))
    }

    /// A reduction along an axis: one work item per output element.
    #[allow(clippy::too_many_arguments)]
    fn axis_reduce(
        &mut self,
        k: &LibKernel,
        env: &mut dyn ActionEnv,
        x: HostArray,
        op: ReduceOp,
        axis: usize,
        program: &Program,
    ) -> Step<Prepared<()>> {
        let mut dims = x.dims.clone();
        let lane = dims.remove(axis);
        let n: i64 = dims.iter().product();
        if n == 0 || (lane == 0 && matches!(op, ReduceOp::Min | ReduceOp::Max)) {
            // Nothing to compute, or the empty reduction's error: the CPU code.
            return Ok(Prepared::Decline(None));
        }
        let out = self.result(env, &dims)?;
        let uses = [
            Use {
                arr: x.clone(),
                name: k.vars[1].0.clone(),
                access: Access::Read,
            },
            Use {
                arr: out.clone(),
                name: k.vars[0].0.clone(),
                access: Access::Overwrite,
            },
        ];
        let specs = |b: &[Bound]| {
            let mut s = vec![Spec::Row(b[0].buffer), Spec::I64(b[0].offset)];
            s.extend(x.dims.iter().map(|d| Spec::I64(*d)));
            s.extend(x.strides.iter().map(|d| Spec::I64(*d)));
            s.push(Spec::Row(b[1].buffer));
            s.push(Spec::I64(b[1].offset));
            s.extend(out.strides.iter().map(|d| Spec::I64(*d)));
            s.push(Spec::I64(n));
            s
        };
        let global = [round_up(n as usize, ELEMENT_GROUP)];
        self.enqueue(k, "", program, "vr_axis", &uses, specs, &[], &global, None)?;
        Ok(Prepared::Run(()))
    }

    /// `matmul` of every rank combination as one `(m x k) * (k x n)` product with the
    /// operands' own strides.
    #[allow(clippy::too_many_arguments)]
    fn matmul(
        &mut self,
        k: &LibKernel,
        env: &mut dyn ActionEnv,
        a: HostArray,
        b: HostArray,
        scalar: bool,
        program: &Program,
    ) -> Step<Prepared<()>> {
        // (rows, inner, row stride, inner stride) of A; (inner, cols, ...) of B.
        let (m, ka, as0, as1) = match a.dims.len() {
            1 => (1, a.dims[0], 0, a.strides[0]),
            _ => (a.dims[0], a.dims[1], a.strides[0], a.strides[1]),
        };
        let (kb, n, bs0, bs1) = match b.dims.len() {
            1 => (b.dims[0], 1, b.strides[0], 0),
            _ => (b.dims[0], b.dims[1], b.strides[0], b.strides[1]),
        };
        if ka != kb || m == 0 || n == 0 || ka == 0 {
            // A shape mismatch (the CPU raises it) or an empty product.
            return Ok(Prepared::Decline(None));
        }
        let rt = self.rt.as_mut().expect("runtime");
        if rt.device().gpu.info.max_work_group < TILE * TILE {
            return Ok(Prepared::Decline(Some(format!(
                "gpu: the device's work groups hold fewer than {} items: matmul runs on the CPU",
                TILE * TILE
            ))));
        }
        let elem = a.elem;
        let es = elem_size(elem);
        let mut uses = vec![
            Use {
                arr: a.clone(),
                name: k.vars[1].0.clone(),
                access: Access::Read,
            },
            Use {
                arr: b.clone(),
                name: k.vars[2].0.clone(),
                access: Access::Read,
            },
        ];
        let mut scratch = None;
        let (cs0, cs1) = if scalar {
            let rt = self.rt.as_mut().expect("runtime");
            scratch = Some(
                rt.device()
                    .alloc(es)
                    .map_err(|e| device_error("allocating a result", e))?,
            );
            (0, 0)
        } else {
            let dims = match (a.dims.len(), b.dims.len()) {
                (1, _) => vec![n],
                (_, 1) => vec![m],
                _ => vec![m, n],
            };
            let out = self.result(env, &dims)?;
            let strides = match (a.dims.len(), b.dims.len()) {
                (1, _) => (0, out.strides[0]),
                (_, 1) => (out.strides[0], 0),
                _ => (out.strides[0], out.strides[1]),
            };
            uses.push(Use {
                arr: out,
                name: k.vars[0].0.clone(),
                access: Access::Overwrite,
            });
            strides
        };
        let specs = |bd: &[Bound]| {
            let mut s = vec![
                Spec::Row(bd[0].buffer),
                Spec::I64(bd[0].offset),
                Spec::I64(as0),
                Spec::I64(as1),
                Spec::Row(bd[1].buffer),
                Spec::I64(bd[1].offset),
                Spec::I64(bs0),
                Spec::I64(bs1),
            ];
            if scalar {
                s.push(Spec::Scratch(0));
                s.push(Spec::I64(0));
            } else {
                s.push(Spec::Row(bd[2].buffer));
                s.push(Spec::I64(bd[2].offset));
            }
            s.extend([
                Spec::I64(cs0),
                Spec::I64(cs1),
                Spec::I64(m),
                Spec::I64(n),
                Spec::I64(ka),
            ]);
            s
        };
        let global = [round_up(n as usize, TILE), round_up(m as usize, TILE)];
        let scratch_refs: Vec<&Buffer<u8>> = scratch.iter().collect();
        self.enqueue(
            k,
            "",
            program,
            "vr_matmul",
            &uses,
            specs,
            &scratch_refs,
            &global,
            Some(&[TILE, TILE]),
        )?;
        if let Some(buf) = &scratch {
            let mut bytes = [0u8; 8];
            let rt = self.rt.as_mut().expect("runtime");
            rt.device()
                .download_into(buf, &mut bytes[..es])
                .map_err(|e| device_error("reading a dot product", e))?;
            env.set_scalar(0, scalar_from(elem, bytes));
        }
        Ok(Prepared::Run(()))
    }

    /// Copies, transposes and copying slices: the selected elements into a new array.
    fn gather(
        &mut self,
        k: &LibKernel,
        env: &mut dyn ActionEnv,
        src: HostArray,
        what: &Gather,
        program: &Program,
    ) -> Step<Prepared<()>> {
        // The selection as a view of `src`: element offset, extents, strides.
        let (mut off, mut dims, mut strides) = (0i64, Vec::new(), Vec::new());
        match what {
            Gather::Copy => {
                dims = src.dims.clone();
                strides = src.strides.clone();
            }
            Gather::Transpose => {
                dims = src.dims.iter().rev().copied().collect();
                strides = src.strides.iter().rev().copied().collect();
            }
            Gather::Slice { dims: sel, flags } => {
                let base = self.index_base as i128;
                let value = |i: usize| env.value(i).as_i64().unwrap_or(0);
                let position = |w: i64, extent: i64| -> i128 {
                    if flags.negative && w < 0 {
                        w as i128 + extent as i128
                    } else {
                        w as i128 - base
                    }
                };
                for (d, s) in sel.iter().enumerate() {
                    let (u, st) = (src.dims[d], src.strides[d]);
                    match s {
                        SliceDim::Scalar(i) => {
                            let p = position(value(*i), u);
                            if p < 0 || p >= u as i128 {
                                return Ok(Prepared::Decline(None));
                            }
                            off += p as i64 * st;
                        }
                        SliceDim::Range { start, stop, step } => {
                            let step = step.map_or(1, value) as i128;
                            if step == 0 {
                                return Ok(Prepared::Decline(None));
                            }
                            let last = u as i128 - 1;
                            let p0 = match start {
                                Some(i) => position(value(*i), u),
                                None if step > 0 => 0,
                                None => last,
                            };
                            let p1 = match stop {
                                Some(i) => position(value(*i), u),
                                None if step > 0 => last,
                                None => 0,
                            };
                            let count = if step > 0 && p1 >= p0 {
                                (p1 - p0) / step + 1
                            } else if step < 0 && p1 <= p0 {
                                (p0 - p1) / -step + 1
                            } else {
                                0
                            };
                            let pn = p0 + (count - 1) * step;
                            if count == 0 || p0 < 0 || p0 > last || pn < 0 || pn > last {
                                // Empty, or out of bounds: the CPU code.
                                return Ok(Prepared::Decline(None));
                            }
                            off += p0 as i64 * st;
                            dims.push(count as i64);
                            strides.push(step as i64 * st);
                        }
                    }
                }
            }
        }
        let n: i64 = dims.iter().product();
        if n == 0 {
            return Ok(Prepared::Decline(None));
        }
        let out = self.result(env, &dims)?;
        let uses = [
            Use {
                arr: src.clone(),
                name: k.vars[1].0.clone(),
                access: Access::Read,
            },
            Use {
                arr: out.clone(),
                name: k.vars[0].0.clone(),
                access: Access::Overwrite,
            },
        ];
        let specs = |b: &[Bound]| {
            let mut s = vec![Spec::Row(b[0].buffer), Spec::I64(b[0].offset + off)];
            s.extend(strides.iter().map(|x| Spec::I64(*x)));
            s.push(Spec::Row(b[1].buffer));
            s.push(Spec::I64(b[1].offset));
            s.extend(out.strides.iter().map(|x| Spec::I64(*x)));
            s.extend(dims.iter().map(|x| Spec::I64(*x)));
            s.push(Spec::I64(n));
            s
        };
        let global = [round_up(n as usize, ELEMENT_GROUP)];
        self.enqueue(
            k,
            "",
            program,
            "vr_gather",
            &uses,
            specs,
            &[],
            &global,
            None,
        )?;
        Ok(Prepared::Run(()))
    }
}
