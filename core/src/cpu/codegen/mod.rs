//! VRIR -> LLVM IR. One LLVM function per VRIR function with the calling convention of
//! [`crate::cpu::abi`], plus one entry wrapper per function for calls from Rust.
//!
//! Split by concern: this file holds the per-module and per-function state, variable
//! slots, run-time checks and signatures; `expr.rs` scalar expressions, casts and library
//! functions; `stmt.rs` statements, loops and calls; `index.rs` array element access;
//! `selection.rs` slices, gathers and masks read; `slice_assign.rs` writes through them.
//! Everything outside this increment's scope is reported as `ErrorKind::Unsupported`.

mod accumulate;
mod alloc;
mod assigned;
mod atomics;
mod complex;
mod elementwise;
mod entry_versions;
mod expr;
mod fused_accumulate;
mod index;
mod interrupt;
mod map;
mod matmul;
mod offload;
mod par_atomics;
mod par_elementwise;
mod par_reduce;
mod parfor;
mod parfor_facts;
mod random;
mod selection;
mod slice_assign;
mod stmt;
mod tuple;

pub(crate) use tuple::is_compound;

pub use matmul::{MATMUL, MATMUL_NOTE};

use crate::cpu::abi::ErrorCode;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::{Function, Module as VModule};
use crate::vrir::types::{ArrayType, ScalarType, Type};
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum, IntType};
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;
use std::collections::HashMap;

/// Name of the Rust function that records a run-time error (see `abi`).
pub const RECORD_ERROR: &str = "vr_cpu_record_error";
/// Name of the Rust function that records a run-time error from a site record (see
/// `abi::vr_cpu_record_error_at`): what check sites call.
pub const RECORD_ERROR_AT: &str = "vr_cpu_record_error_at";
/// Name of the Rust function that creates an array in the call's arena (see `abi`).
pub const ALLOC_ARRAY: &str = "vr_cpu_alloc_array";
pub use offload::OFFLOAD;
pub use parfor::{PARFOR, PARFOR_SERIAL};
pub const IPOW_I32: &str = "vr_cpu_ipow_i32";
/// Name of the Rust function that makes a random draw (see `cpu::random`).
pub const RANDOM: &str = "vr_cpu_random";
pub const IPOW_I64: &str = "vr_cpu_ipow_i64";
/// Name of the Rust function that fills a fresh array with one value (see `abi`).
pub const FILL: &str = "vr_cpu_fill";

/// LLVM name of the internal function compiled from VRIR function `name` (prefixed so a
/// VRIR function called `sin` cannot clash with the C library).
pub fn internal_name(name: &str) -> String {
    format!("vr.{name}")
}

/// LLVM name of the entry wrapper `i32 (ptr ctx, ptr args, ptr results)`.
pub fn entry_name(name: &str) -> String {
    format!("vr.{name}__entry")
}

impl From<BuilderError> for VrError {
    fn from(e: BuilderError) -> VrError {
        VrError::new(
            ErrorKind::Internal,
            format!("cpu backend: LLVM builder: {e}"),
        )
    }
}

pub(crate) fn unsupported(what: &str, func: &str) -> VrError {
    VrError::new(
        ErrorKind::Unsupported,
        format!("cpu backend: {what} in function {func} is not supported yet"),
    )
    .with_function(func)
}

/// A compiled scalar value and its VRIR type (bool is `i1`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Val<'ctx> {
    pub v: BasicValueEnum<'ctx>,
    pub ty: ScalarType,
}

impl<'ctx> Val<'ctx> {
    pub fn int(&self) -> IntValue<'ctx> {
        self.v.into_int_value()
    }
    pub fn float(&self) -> inkwell::values::FloatValue<'ctx> {
        self.v.into_float_value()
    }
}

/// Where a variable lives during a call.
#[derive(Clone, Debug)]
pub(crate) enum Slot<'ctx> {
    /// A stack slot in memory representation, with an `i1` "assigned" flag for locals
    /// (parameters are always assigned).
    Scalar {
        ty: ScalarType,
        ptr: PointerValue<'ctx>,
        assigned: Option<PointerValue<'ctx>>,
    },
    /// An array parameter: its descriptor's fields, loaded once at entry (a descriptor
    /// does not change during a call).
    Array(ArrayView<'ctx>),
    /// An array local: a descriptor of its own in the frame (with room for its dims and
    /// strides) into which every assignment copies the array it refers to (arrays are
    /// references: only the descriptor is copied), with its "assigned" flag.
    ArrayVar {
        ty: ArrayType,
        ptr: PointerValue<'ctx>,
        assigned: PointerValue<'ctx>,
    },
    /// A range, domain or tuple (`tuple.rs`): its memory and, for locals, its
    /// "assigned" flag.
    Value {
        ty: Type,
        ptr: PointerValue<'ctx>,
        assigned: Option<PointerValue<'ctx>>,
    },
    /// A local of a type generated code does not handle (void, function).
    Unsupported,
}

/// An array as generated code addresses it.
#[derive(Clone, Debug)]
pub(crate) struct ArrayView<'ctx> {
    pub ty: ArrayType,
    /// The `ArrayDesc` it was loaded from (what calls pass on).
    pub desc: PointerValue<'ctx>,
    pub data: PointerValue<'ctx>,
    pub dims: Vec<IntValue<'ctx>>,
    pub strides: Vec<IntValue<'ctx>>,
}

/// Module-wide code generation state.
pub struct CodeGen<'ctx, 'm> {
    pub(crate) cx: &'ctx Context,
    pub(crate) module: Module<'ctx>,
    pub(crate) builder: Builder<'ctx>,
    pub(crate) vm: &'m VModule,
    pub(crate) funcs: HashMap<String, FunctionValue<'ctx>>,
    strings: HashMap<String, PointerValue<'ctx>>,
    /// Outline parfor bodies and run them on the thread pool (`cpu-par`); serial when
    /// false (`cpu`).
    pub(crate) parallel: bool,
    /// Compile no-alias versions of qualifying functions (`entry_versions.rs`).
    pub(crate) alias_versions: bool,
    /// Functions with a no-alias version: its LLVM function and the parameter pairs the
    /// entry tests for overlap.
    pub(crate) noalias_variants: HashMap<String, (FunctionValue<'ctx>, Vec<(usize, usize)>)>,
    /// Accumulate qualifying parfor atomics per chunk (`par_atomics.rs`).
    pub(crate) privatize_atomics: bool,
    /// The privatized atomic-add sites of the chunk functions being built, by their
    /// `:value` expression.
    pub(crate) chunk_sum_sites: HashMap<*const crate::vrir::ast::Expr, par_atomics::ChunkSum<'ctx>>,
    /// Outlined element-wise chunk functions built so far, by their IR text (their own
    /// name left out): a new one that is the same text is deleted and this one called
    /// instead (`par_elementwise.rs`, [`CodeGen::shared_chunk_fn`]).
    pub(crate) chunk_fns: HashMap<String, inkwell::values::FunctionValue<'ctx>>,
    /// Per parfor body (by address): facts about the enclosing function (`parfor_facts.rs`).
    pub(crate) parfor_facts: HashMap<*const crate::vrir::ast::Block, parfor_facts::ParforFacts>,
    /// Actions of an offload engine attached to statements (`offload.rs`), if any.
    pub(crate) offload: Option<&'m crate::runtime::offload::OffloadPlan>,
    /// Preorder number of every statement of the module (the plan's names for them).
    pub(crate) stmt_ids: HashMap<*const crate::vrir::ast::Stmt, usize>,
    /// A `while` statement's condition action, taken by the loop being compiled.
    pub(crate) pending_cond: Option<&'m crate::runtime::offload::Action>,
    /// Constant error-site records by content (`error_site`).
    error_sites: HashMap<ErrorSiteKey, PointerValue<'ctx>>,
    /// Per VRIR function, the locals read without an "assigned" check (`assigned.rs`).
    unchecked_reads: HashMap<String, std::collections::BTreeSet<String>>,
}

/// What an error-site record holds: code, function, line, variable, note text.
type ErrorSiteKey = (i32, String, i64, Option<String>, Option<String>);

/// Per-function state.
pub(crate) struct FnGen<'ctx, 'm> {
    pub f: &'m Function,
    pub llfn: FunctionValue<'ctx>,
    pub ctx_ptr: PointerValue<'ctx>,
    pub outs: Vec<PointerValue<'ctx>>,
    pub vars: HashMap<String, Slot<'ctx>>,
    /// (continue target, break target) of the enclosing loops, innermost last.
    pub loops: Vec<(
        inkwell::basic_block::BasicBlock<'ctx>,
        inkwell::basic_block::BasicBlock<'ctx>,
    )>,
    /// Source line of the statement being compiled.
    pub line: Option<u32>,
    /// Builder that inserts allocas at the top of the entry block.
    pub alloca_builder: Builder<'ctx>,
    /// `ctx->depth` on entry, stored back on every normal return.
    pub depth_in: IntValue<'ctx>,
}

impl<'ctx, 'm> CodeGen<'ctx, 'm> {
    pub fn new(cx: &'ctx Context, vm: &'m VModule) -> CodeGen<'ctx, 'm> {
        CodeGen {
            cx,
            module: cx.create_module(&vm.name),
            builder: cx.create_builder(),
            vm,
            funcs: HashMap::new(),
            strings: HashMap::new(),
            parallel: false,
            alias_versions: false,
            noalias_variants: HashMap::new(),
            privatize_atomics: false,
            chunk_sum_sites: HashMap::new(),
            chunk_fns: HashMap::new(),
            parfor_facts: HashMap::new(),
            offload: None,
            stmt_ids: HashMap::new(),
            pending_cond: None,
            error_sites: HashMap::new(),
            unchecked_reads: HashMap::new(),
        }
    }

    /// Call an offload engine where `plan` says (see `offload.rs`).
    pub fn with_offload(mut self, plan: Option<&'m crate::runtime::offload::OffloadPlan>) -> Self {
        self.offload = plan.filter(|p| !p.is_empty());
        if self.offload.is_some() {
            for f in &self.vm.functions {
                for (k, s) in crate::analysis::preorder(&f.body).into_iter().enumerate() {
                    self.stmt_ids.insert(s as *const crate::vrir::ast::Stmt, k);
                }
            }
        }
        self
    }

    /// Compile no-alias versions of functions whose array parameters may overlap,
    /// chosen at entry (see `entry_versions.rs`).
    pub fn with_alias_versions(mut self, on: bool) -> Self {
        self.alias_versions = on;
        self
    }

    /// Compile parfor loops for the thread pool (see `parfor.rs`).
    pub fn with_parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// Generate the whole module (unoptimized, without host attributes).
    pub fn generate(mut self) -> VrResult<Module<'ctx>> {
        self.declare_runtime();
        for f in &self.vm.functions {
            let llfn = self.declare_function(f)?;
            self.funcs.insert(f.name.clone(), llfn);
        }
        for f in &self.vm.functions {
            self.declare_noalias_variant(f)?;
        }
        for f in &self.vm.functions {
            // A safe point between functions: a large module's code generation is
            // long, and the half-built LLVM module is dropped with the context.
            crate::cpu::interrupt::check_compile(&format!("generating code for `{}`", f.name))?;
            self.define_function(f, self.funcs[&f.name], false)?;
            if let Some((variant, _)) = self.noalias_variants.get(&f.name) {
                let t = std::time::Instant::now();
                self.define_function(f, *variant, true)?;
                crate::compile_phases::record("codegen.noalias-copy", t);
            }
            self.define_entry(f)?;
        }
        let t = std::time::Instant::now();
        let verified = self.module.verify();
        crate::compile_phases::record("llvm-verify", t);
        if let Err(e) = verified {
            return Err(VrError::new(
                ErrorKind::Internal,
                format!("cpu backend: invalid LLVM IR: {e}"),
            ));
        }
        Ok(self.module)
    }

    fn declare_runtime(&self) {
        let ptr = self.ptr_type();
        let (i32t, i64t) = (self.cx.i32_type(), self.cx.i64_type());
        let rec = self.cx.void_type().fn_type(
            &[
                ptr.into(),
                i32t.into(),
                ptr.into(),
                i64t.into(),
                i64t.into(),
                ptr.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
                ptr.into(),
                i64t.into(),
                ptr.into(),
            ],
            false,
        );
        let f = self
            .module
            .add_function(RECORD_ERROR, rec, Some(Linkage::External));
        // Error paths are rare: keep them out of the hot code.
        f.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("cold"),
        );
        let rec_at = self.cx.void_type().fn_type(
            &[
                ptr.into(),
                ptr.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
                ptr.into(),
            ],
            false,
        );
        let f = self
            .module
            .add_function(RECORD_ERROR_AT, rec_at, Some(Linkage::External));
        f.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("cold"),
        );
        self.module.add_function(
            ALLOC_ARRAY,
            ptr.fn_type(
                &[ptr.into(), i64t.into(), ptr.into(), i64t.into(), i32t.into()],
                false,
            ),
            Some(Linkage::External),
        );
        if self.parallel {
            self.declare_parallel_runtime();
        }
        if self.offload.is_some() {
            self.declare_offload_runtime();
        }
        self.declare_interrupt_source();
        self.module.add_function(
            RANDOM,
            i32t.fn_type(
                &[ptr.into(), i32t.into(), self.cx.f64_type().into(), ptr.into()],
                false,
            ),
            Some(Linkage::External),
        );
        self.module.add_function(
            IPOW_I32,
            i32t.fn_type(&[i32t.into(), i32t.into()], false),
            Some(Linkage::External),
        );
        self.module.add_function(
            IPOW_I64,
            i64t.fn_type(&[i64t.into(), i64t.into()], false),
            Some(Linkage::External),
        );
        let fill = self.module.add_function(
            FILL,
            self.cx
                .void_type()
                .fn_type(&[ptr.into(), i64t.into(), ptr.into(), i64t.into()], false),
            Some(Linkage::External),
        );
        fill.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("nounwind"),
        );
    }

    pub(crate) fn enum_attr(&self, name: &str) -> inkwell::attributes::Attribute {
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(name);
        self.cx.create_enum_attribute(kind, 0)
    }

    pub(crate) fn ptr_type(&self) -> inkwell::types::PointerType<'ctx> {
        self.cx.ptr_type(AddressSpace::default())
    }

    /// Register type of a scalar: bool is `i1`.
    pub(crate) fn reg_type(&self, t: ScalarType, func: &str) -> VrResult<BasicTypeEnum<'ctx>> {
        Ok(match t {
            ScalarType::Bool => self.cx.bool_type().into(),
            ScalarType::I32 => self.cx.i32_type().into(),
            ScalarType::I64 => self.cx.i64_type().into(),
            ScalarType::F32 => self.cx.f32_type().into(),
            ScalarType::F64 => self.cx.f64_type().into(),
            ScalarType::C64 | ScalarType::C128 => {
                let _ = func;
                self.complex_type(t).into()
            }
        })
    }

    /// Memory type of a scalar: bool is one byte.
    pub(crate) fn mem_type(&self, t: ScalarType, func: &str) -> VrResult<BasicTypeEnum<'ctx>> {
        if t == ScalarType::Bool {
            Ok(self.cx.i8_type().into())
        } else {
            self.reg_type(t, func)
        }
    }

    pub(crate) fn i64c(&self, v: i64) -> IntValue<'ctx> {
        self.cx.i64_type().const_int(v as u64, true)
    }

    /// A view's stride made from a run-time range step (R's `a:b` steps by its direction,
    /// `2 * (a <= b) - 1`), as an opaque value: LLVM's loop vectorizer speculates that a
    /// loop-invariant stride it cannot see through is 1, and tests that once before the
    /// vector loop (a contiguous load instead of a gather); a stride it can analyse as an
    /// expression of the step is not speculated, and every access of the view becomes a
    /// gather (R's `b[I, J] <- a[I, J - 1] + ...`: 2.5x its loop version). `freeze` of a
    /// value that is never poison (products and sums without overflow flags) is that
    /// value; a constant stays a constant.
    pub(crate) fn opaque_stride(&self, v: IntValue<'ctx>) -> IntValue<'ctx> {
        if v.is_const() {
            return v;
        }
        // SAFETY: the builder is positioned in a block (the caller just built `v`), and
        // LLVMBuildFreeze returns a value of `v`'s type.
        unsafe {
            IntValue::new(inkwell::llvm_sys::core::LLVMBuildFreeze(
                self.builder.as_mut_ptr(),
                v.as_value_ref(),
                c"stride".as_ptr(),
            ))
        }
    }

    pub(crate) fn int_type(&self, t: ScalarType) -> IntType<'ctx> {
        match t {
            ScalarType::Bool => self.cx.bool_type(),
            ScalarType::I32 => self.cx.i32_type(),
            _ => self.cx.i64_type(),
        }
    }

    fn declare_function(&self, f: &Function) -> VrResult<FunctionValue<'ctx>> {
        let ptr = self.ptr_type();
        let mut params: Vec<BasicMetadataTypeEnum> = vec![ptr.into()];
        for r in &f.results {
            match r {
                Type::Scalar { elem } => {
                    self.reg_type(*elem, &f.name)?;
                    params.push(ptr.into());
                }
                // An array result is one of the arrays the function was given: the out
                // slot receives its descriptor pointer.
                Type::Array(a) => {
                    self.reg_type(a.elem, &f.name)?;
                    params.push(ptr.into());
                }
                // A range, domain or tuple: the out slot is memory of its type.
                t if tuple::is_compound(t) => {
                    self.value_mem_type(t, &f.name)?;
                    params.push(ptr.into());
                }
                other => return Err(unsupported(&format!("result of type `{other}`"), &f.name)),
            }
        }
        for p in &f.params {
            match &p.ty {
                Type::Scalar { elem } => params.push(self.reg_type(*elem, &f.name)?.into()),
                Type::Array(a) => {
                    self.reg_type(a.elem, &f.name)?;
                    params.push(ptr.into());
                }
                t if tuple::is_compound(t) => {
                    self.value_mem_type(t, &f.name)?;
                    params.push(ptr.into());
                }
                other => {
                    return Err(unsupported(
                        &format!("parameter `{}` of type `{other}`", p.name),
                        &f.name,
                    ))
                }
            }
        }
        let fty = self.cx.i32_type().fn_type(&params, false);
        let llfn = self
            .module
            .add_function(&internal_name(&f.name), fty, Some(Linkage::Internal));
        llfn.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("nounwind"),
        );
        let names = std::iter::once("ctx".to_string())
            .chain((0..f.results.len()).map(|k| format!("out{k}")))
            .chain(f.params.iter().map(|p| format!("{}.arg", p.name)));
        for (v, n) in llfn.get_param_iter().zip(names) {
            v.set_name(&n);
        }
        Ok(llfn)
    }

    /// A constant string of the module (deduplicated), as a pointer to its bytes.
    pub(crate) fn string(&mut self, s: &str) -> PointerValue<'ctx> {
        if let Some(p) = self.strings.get(s) {
            return *p;
        }
        let init = self.cx.const_string(s.as_bytes(), false);
        let g = self.module.add_global(init.get_type(), None, "vr.str");
        g.set_initializer(&init);
        g.set_constant(true);
        g.set_linkage(Linkage::Private);
        g.set_unnamed_addr(true);
        let p = g.as_pointer_value();
        self.strings.insert(s.to_string(), p);
        p
    }

    /// Define `llfn` as the code of `f`. `noalias_data`: `llfn` is `f`'s no-alias
    /// version, whose extra trailing parameters are the array parameters' data pointers,
    /// used in place of the descriptors' (`entry_versions.rs`).
    fn define_function(
        &mut self,
        f: &'m Function,
        llfn: FunctionValue<'ctx>,
        noalias_data: bool,
    ) -> VrResult<()> {
        let entry = self.cx.append_basic_block(llfn, "entry");
        self.builder.position_at_end(entry);
        let alloca_builder = self.cx.create_builder();
        alloca_builder.position_at_end(entry);
        let param = |i: usize| llfn.get_nth_param(i as u32).expect("declared parameter");
        let ctx_ptr = param(0).into_pointer_value();
        let outs: Vec<_> = (0..f.results.len())
            .map(|i| param(1 + i).into_pointer_value())
            .collect();
        let depth_in = self.cx.i64_type().const_zero();
        let mut g = FnGen {
            f,
            llfn,
            ctx_ptr,
            outs,
            vars: HashMap::new(),
            loops: Vec::new(),
            line: None,
            alloca_builder,
            depth_in,
        };
        // Allocas first, then the initialisation code, so all allocas stay at the top.
        let first_param = 1 + f.results.len();
        let mut inits = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let v = param(first_param + i);
            match &p.ty {
                Type::Scalar { elem } => {
                    let ptr = self
                        .builder
                        .build_alloca(self.mem_type(*elem, &f.name)?, &p.name)?;
                    g.vars.insert(
                        p.name.clone(),
                        Slot::Scalar {
                            ty: *elem,
                            ptr,
                            assigned: None,
                        },
                    );
                    inits.push((p.name.clone(), v));
                }
                // Its descriptor is loaded below, after all allocas.
                Type::Array(_) => inits.push((p.name.clone(), v)),
                t => {
                    let slot = self.compound_param(t, &p.name, &f.name)?;
                    g.vars.insert(p.name.clone(), slot);
                    inits.push((p.name.clone(), v));
                }
            }
        }
        for l in &f.locals {
            match &l.ty {
                Type::Scalar { elem } => {
                    let ptr = self
                        .builder
                        .build_alloca(self.mem_type(*elem, &f.name)?, &l.name)?;
                    let flag = self
                        .builder
                        .build_alloca(self.cx.bool_type(), &format!("{}.assigned", l.name))?;
                    g.vars.insert(
                        l.name.clone(),
                        Slot::Scalar {
                            ty: *elem,
                            ptr,
                            assigned: Some(flag),
                        },
                    );
                }
                Type::Array(a) => {
                    self.reg_type(a.elem, &f.name)?;
                    let ptr = self.desc_buffer(&self.builder, &self.builder, a.ndims, &l.name)?;
                    let flag = self
                        .builder
                        .build_alloca(self.cx.bool_type(), &format!("{}.assigned", l.name))?;
                    g.vars.insert(
                        l.name.clone(),
                        Slot::ArrayVar {
                            ty: *a,
                            ptr,
                            assigned: flag,
                        },
                    );
                }
                t => {
                    let slot = self.compound_local(t, &l.name, &f.name)?;
                    g.vars.insert(l.name.clone(), slot);
                }
            }
        }
        let first_data = (first_param + f.params.len()) as u32;
        let mut arrays_seen = 0u32;
        for (name, v) in inits {
            let p = f.params.iter().find(|p| p.name == name).expect("parameter");
            match &p.ty {
                Type::Scalar { elem } => {
                    let val = Val { v, ty: *elem };
                    self.store_var(&g, &name, val)?;
                }
                Type::Array(a) => {
                    let mut view = self.load_desc(v.into_pointer_value(), *a, &name)?;
                    if noalias_data {
                        view.data = llfn
                            .get_nth_param(first_data + arrays_seen)
                            .expect("declared data parameter")
                            .into_pointer_value();
                    }
                    arrays_seen += 1;
                    g.vars.insert(name, Slot::Array(view));
                }
                _ => {
                    if let Some(slot) = g.vars.get(&name) {
                        self.init_compound_param(slot, v, &f.name)?;
                    }
                }
            }
        }
        for l in &f.locals {
            if let Some(
                Slot::Scalar {
                    assigned: Some(flag),
                    ..
                }
                | Slot::ArrayVar { assigned: flag, .. }
                | Slot::Value {
                    assigned: Some(flag),
                    ..
                },
            ) = g.vars.get(&l.name)
            {
                self.builder
                    .build_store(*flag, self.cx.bool_type().const_zero())?;
            }
        }
        // Recursion limit, as the interpreter's: ctx->depth counts nested calls.
        let i64t = self.cx.i64_type();
        g.depth_in = self
            .builder
            .build_load(i64t, ctx_ptr, "depth")?
            .into_int_value();
        // Built before the alloca position is chosen, so that the entry block always has
        // code for later allocas to go above: a function without parameters or locals
        // would otherwise append them after its terminator. Later allocas (call result
        // slots) go above the code.
        let first_code = entry.get_first_instruction();
        let mut insert_before = first_code;
        while let Some(i) = insert_before {
            if i.get_opcode() == inkwell::values::InstructionOpcode::Alloca {
                insert_before = i.get_next_instruction();
            } else {
                break;
            }
        }
        match insert_before {
            Some(i) => g.alloca_builder.position_before(&i),
            None => g.alloca_builder.position_at_end(entry),
        }
        let depth = self.builder.build_int_add(g.depth_in, self.i64c(1), "")?;
        // The recursion limit is checked by callers (see `call`), like the interpreter's.
        self.builder.build_store(ctx_ptr, depth)?;
        self.block(&mut g, &f.body)?;
        if !self.terminated() {
            // Like the interpreter, a missing return names the function but no line.
            g.line = None;
            if f.results.is_empty() {
                self.return_ok(&g)?;
            } else {
                self.fail(&mut g, ErrorCode::MissingReturn, None, None)?;
            }
        }
        Ok(())
    }

    /// Normal return: restore the call depth and return status 0.
    pub(crate) fn return_ok(&self, g: &FnGen<'ctx, 'm>) -> VrResult<()> {
        self.builder.build_store(g.ctx_ptr, g.depth_in)?;
        self.builder
            .build_return(Some(&self.cx.i32_type().const_zero()))?;
        Ok(())
    }

    /// Load an array descriptor's fields into SSA values.
    pub(crate) fn load_desc(
        &self,
        desc: PointerValue<'ctx>,
        ty: ArrayType,
        name: &str,
    ) -> VrResult<ArrayView<'ctx>> {
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let field = |k: u64| -> VrResult<PointerValue<'ctx>> {
            // SAFETY (LLVM): ArrayDesc is three pointers; field k is at k * 8 bytes.
            Ok(unsafe {
                self.builder
                    .build_in_bounds_gep(ptr, desc, &[i64t.const_int(k, false)], "")?
            })
        };
        let data = self
            .builder
            .build_load(ptr, field(0)?, &format!("{name}.data"))?
            .into_pointer_value();
        let dims_p = self
            .builder
            .build_load(ptr, field(1)?, "")?
            .into_pointer_value();
        let strides_p = self
            .builder
            .build_load(ptr, field(2)?, "")?
            .into_pointer_value();
        let mut dims = Vec::new();
        let mut strides = Vec::new();
        for k in 0..ty.ndims as u64 {
            let dp = unsafe {
                self.builder
                    .build_in_bounds_gep(i64t, dims_p, &[i64t.const_int(k, false)], "")?
            };
            dims.push(
                self.builder
                    .build_load(i64t, dp, &format!("{name}.dim{k}"))?
                    .into_int_value(),
            );
            let sp = unsafe {
                self.builder.build_in_bounds_gep(
                    i64t,
                    strides_p,
                    &[i64t.const_int(k, false)],
                    "",
                )?
            };
            strides.push(
                self.builder
                    .build_load(i64t, sp, &format!("{name}.stride{k}"))?
                    .into_int_value(),
            );
        }
        Ok(ArrayView {
            ty,
            desc,
            data,
            dims,
            strides,
        })
    }

    /// A descriptor in the frame with room for `ndims` dims and strides: allocas through
    /// `alloc`, the two vector pointers stored through `init`.
    pub(crate) fn desc_buffer(
        &self,
        alloc: &Builder<'ctx>,
        init: &Builder<'ctx>,
        ndims: u32,
        name: &str,
    ) -> VrResult<PointerValue<'ctx>> {
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let desc = alloc.build_alloca(ptr.array_type(3), name)?;
        let dims = alloc.build_alloca(i64t.array_type(ndims.max(1)), "dims")?;
        let strides = alloc.build_alloca(i64t.array_type(ndims.max(1)), "strides")?;
        for (k, v) in [(1u64, dims), (2u64, strides)] {
            let f =
                unsafe { init.build_in_bounds_gep(ptr, desc, &[i64t.const_int(k, false)], "")? };
            init.build_store(f, v)?;
        }
        Ok(desc)
    }

    /// Write a view into a descriptor whose `dims` and `strides` point to storage of the
    /// view's rank (an array result slot provided by the caller).
    pub(crate) fn store_desc(
        &self,
        out: PointerValue<'ctx>,
        view: &ArrayView<'ctx>,
    ) -> VrResult<()> {
        let ptr = self.ptr_type();
        let i64t = self.cx.i64_type();
        let field = |k: u64| -> VrResult<PointerValue<'ctx>> {
            Ok(unsafe {
                self.builder
                    .build_in_bounds_gep(ptr, out, &[i64t.const_int(k, false)], "")?
            })
        };
        self.builder.build_store(field(0)?, view.data)?;
        for (f, vals) in [(1u64, &view.dims), (2u64, &view.strides)] {
            let base = self
                .builder
                .build_load(ptr, field(f)?, "")?
                .into_pointer_value();
            for (k, v) in vals.iter().enumerate() {
                let p = unsafe {
                    self.builder.build_in_bounds_gep(
                        i64t,
                        base,
                        &[i64t.const_int(k as u64, false)],
                        "",
                    )?
                };
                self.builder.build_store(p, *v)?;
            }
        }
        Ok(())
    }

    /// Entry wrapper: unpack `args` / `results` (arrays of pointers) and call.
    fn define_entry(&mut self, f: &Function) -> VrResult<()> {
        let ptr = self.ptr_type();
        let fty = self
            .cx
            .i32_type()
            .fn_type(&[ptr.into(), ptr.into(), ptr.into()], false);
        let entry_fn = self
            .module
            .add_function(&entry_name(&f.name), fty, Some(Linkage::External));
        entry_fn.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.enum_attr("nounwind"),
        );
        let bb = self.cx.append_basic_block(entry_fn, "entry");
        self.builder.position_at_end(bb);
        let p = |i: u32| {
            entry_fn
                .get_nth_param(i)
                .expect("param")
                .into_pointer_value()
        };
        let (ctx, args, results) = (p(0), p(1), p(2));
        ctx.set_name("ctx");
        args.set_name("args");
        results.set_name("results");
        let i64t = self.cx.i64_type();
        let nth_ptr = |base: PointerValue<'ctx>, k: usize| -> VrResult<PointerValue<'ctx>> {
            let slot = unsafe {
                self.builder.build_in_bounds_gep(
                    ptr,
                    base,
                    &[i64t.const_int(k as u64, false)],
                    "",
                )?
            };
            Ok(self.builder.build_load(ptr, slot, "")?.into_pointer_value())
        };
        let mut call_args: Vec<inkwell::values::BasicMetadataValueEnum> = vec![ctx.into()];
        for k in 0..f.results.len() {
            call_args.push(nth_ptr(results, k)?.into());
        }
        for (k, prm) in f.params.iter().enumerate() {
            let a = nth_ptr(args, k)?;
            match &prm.ty {
                Type::Scalar { elem } => {
                    let raw =
                        self.builder
                            .build_load(self.mem_type(*elem, &f.name)?, a, &prm.name)?;
                    call_args.push(self.mem_to_reg(raw, *elem)?.into());
                }
                _ => call_args.push(a.into()),
            }
        }
        if self.noalias_variants.contains_key(&f.name) {
            return self.dispatch_on_overlap(f, entry_fn, ctx, call_args);
        }
        let status = self
            .builder
            .build_call(self.funcs[&f.name], &call_args, "status")?;
        let status = status.try_as_basic_value();
        let inkwell::values::ValueKind::Basic(status) = status else {
            return Err(VrError::new(
                ErrorKind::Internal,
                "cpu backend: call without status",
            ));
        };
        self.builder.build_return(Some(&status))?;
        Ok(())
    }

    /// Memory representation -> register representation (bool: i8 -> i1).
    pub(crate) fn mem_to_reg(
        &self,
        raw: BasicValueEnum<'ctx>,
        t: ScalarType,
    ) -> VrResult<BasicValueEnum<'ctx>> {
        if t == ScalarType::Bool {
            let b = raw.into_int_value();
            Ok(self
                .builder
                .build_int_compare(inkwell::IntPredicate::NE, b, b.get_type().const_zero(), "")?
                .into())
        } else {
            Ok(raw)
        }
    }

    /// Register representation -> memory representation (bool: i1 -> i8).
    pub(crate) fn reg_to_mem(&self, v: Val<'ctx>) -> VrResult<BasicValueEnum<'ctx>> {
        if v.ty == ScalarType::Bool {
            Ok(self
                .builder
                .build_int_z_extend(v.int(), self.cx.i8_type(), "")?
                .into())
        } else {
            Ok(v.v)
        }
    }

    pub(crate) fn terminated(&self) -> bool {
        self.builder
            .get_insert_block()
            .and_then(|b| b.get_terminator())
            .is_some()
    }

    /// Continue emitting into a fresh block (after a terminator, code is unreachable).
    pub(crate) fn start_dead_block(&self, g: &FnGen<'ctx, 'm>) {
        let bb = self.cx.append_basic_block(g.llfn, "dead");
        self.builder.position_at_end(bb);
    }

    pub(crate) fn store_var(&self, g: &FnGen<'ctx, 'm>, name: &str, v: Val<'ctx>) -> VrResult<()> {
        match g.vars.get(name) {
            Some(Slot::Scalar { ty, ptr, assigned }) => {
                if *ty != v.ty {
                    return Err(VrError::type_error(format!(
                        "cannot assign {} to `{name}` of type {ty}",
                        v.ty
                    ))
                    .with_function(&g.f.name));
                }
                self.builder.build_store(*ptr, self.reg_to_mem(v)?)?;
                if let Some(flag) = assigned {
                    self.builder
                        .build_store(*flag, self.cx.bool_type().const_all_ones())?;
                }
                Ok(())
            }
            Some(_) => Err(unsupported(
                &format!("assignment to non-scalar variable `{name}`"),
                &g.f.name,
            )),
            None => {
                Err(VrError::type_error(format!("unknown variable `{name}`"))
                    .with_function(&g.f.name))
            }
        }
    }

    /// Record a run-time error in ctx and return status 1 from the current function.
    /// `extra` fills the (index, bound, dim) fields: for out-of-bounds errors the index
    /// as written, the extent and the dimension; other codes use them as `abi` says.
    pub(crate) fn fail(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        code: ErrorCode,
        var: Option<&str>,
        extra: Option<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)>,
    ) -> VrResult<()> {
        self.fail_noted(g, code, var, extra, None)
    }

    /// `fail` with a note: a constant text (`abi::CallCtx::note`) and values stored in
    /// the frame only on this error path (the indices of an access, as written).
    ///
    /// The site's constant fields (code, function, line, variable, note text) are one
    /// constant record (`error_site`, `abi::ErrorSite`) passed by address: compile
    /// latency, see `abi::vr_cpu_record_error_at`.
    pub(crate) fn fail_noted(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        code: ErrorCode,
        var: Option<&str>,
        extra: Option<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)>,
        note: Option<(&str, &[IntValue<'ctx>])>,
    ) -> VrResult<()> {
        let null_p = self.ptr_type().const_null();
        let note_vals = match note {
            Some((_, vals)) => {
                let i64t = self.cx.i64_type();
                let arr = g
                    .alloca_builder
                    .build_alloca(i64t.array_type(vals.len().max(1) as u32), "note")?;
                for (k, v) in vals.iter().enumerate() {
                    let p = unsafe {
                        self.builder.build_in_bounds_gep(
                            i64t,
                            arr,
                            &[i64t.const_int(k as u64, false)],
                            "",
                        )?
                    };
                    self.builder.build_store(p, *v)?;
                }
                arr
            }
            None => null_p,
        };
        let (index, bound, dim) = match extra {
            Some(x) => x,
            None => (self.i64c(0), self.i64c(0), self.i64c(-1)),
        };
        let line = g.line.map_or(-1, |l| l as i64);
        let site = self.error_site(code, &g.f.name, line, var, note.map(|n| n.0));
        let rec = self.module.get_function(RECORD_ERROR_AT).expect("declared");
        let args = [
            g.ctx_ptr.into(),
            site.into(),
            index.into(),
            bound.into(),
            dim.into(),
            note_vals.into(),
        ];
        self.builder.build_call(rec, &args, "")?;
        self.builder
            .build_return(Some(&self.cx.i32_type().const_int(1, false)))?;
        Ok(())
    }

    /// The constant record of an error site: `{i32 code, ptr function, i64 length,
    /// i64 line, ptr variable, i64 length, ptr note, i64 length}`, one per distinct
    /// content in the module.
    fn error_site(
        &mut self,
        code: ErrorCode,
        func: &str,
        line: i64,
        var: Option<&str>,
        note: Option<&str>,
    ) -> PointerValue<'ctx> {
        let key = (
            code as i32,
            func.to_string(),
            line,
            var.map(str::to_string),
            note.map(str::to_string),
        );
        if let Some(p) = self.error_sites.get(&key) {
            return *p;
        }
        let null = self.ptr_type().const_null();
        let fname = self.string(func);
        let vname = var.map_or(null, |v| self.string(v));
        let ntext = note.map_or(null, |n| self.string(n));
        let len = |s: Option<&str>| self.i64c(s.map_or(0, |s| s.len() as i64));
        let init = self.cx.const_struct(
            &[
                self.cx.i32_type().const_int(code as u64, false).into(),
                fname.into(),
                len(Some(func)).into(),
                self.i64c(line).into(),
                vname.into(),
                len(var).into(),
                ntext.into(),
                len(note).into(),
            ],
            false,
        );
        let gl = self.module.add_global(init.get_type(), None, "vr.err.site");
        gl.set_initializer(&init);
        gl.set_constant(true);
        gl.set_linkage(Linkage::Private);
        gl.set_unnamed_addr(true);
        let p = gl.as_pointer_value();
        self.error_sites.insert(key, p);
        p
    }

    /// Whether a read of variable `var` of `f` must test its "assigned" flag: false for
    /// a local proved assigned at every read (`assigned.rs`).
    pub(crate) fn read_needs_check(&mut self, f: &Function, var: &str) -> bool {
        !self
            .unchecked_reads
            .entry(f.name.clone())
            .or_insert_with(|| assigned::assigned_at_every_read(f))
            .contains(var)
    }

    /// `check` with a note (see `fail_noted`).
    pub(crate) fn check_noted(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        ok: IntValue<'ctx>,
        code: ErrorCode,
        var: Option<&str>,
        extra: Option<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)>,
        note: Option<(&str, &[IntValue<'ctx>])>,
    ) -> VrResult<()> {
        // A test that holds at compile time needs no failure path.
        if ok.get_zero_extended_constant() == Some(1) {
            return Ok(());
        }
        let fail_bb = self.cx.append_basic_block(g.llfn, "fail");
        let ok_bb = self.cx.append_basic_block(g.llfn, "ok");
        self.builder.build_conditional_branch(ok, ok_bb, fail_bb)?;
        self.builder.position_at_end(fail_bb);
        self.fail_noted(g, code, var, extra, note)?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    /// Branch on `ok`: fall through when true, record the error and return otherwise.
    pub(crate) fn check(
        &mut self,
        g: &mut FnGen<'ctx, 'm>,
        ok: IntValue<'ctx>,
        code: ErrorCode,
        var: Option<&str>,
        extra: Option<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)>,
    ) -> VrResult<()> {
        self.check_noted(g, ok, code, var, extra, None)
    }
}
