//! The execution engine: host-CPU attributes, the -O2 pipeline, MCJIT, and the mapping
//! of run-time helpers and C math functions by address.
//!
//! inkwell ties every LLVM object to a `Context` lifetime; a compiled module must own its
//! context and engine together, so [`JitModule`] keeps the context in a leaked box and
//! drops the engine (which owns the module) before reclaiming it.

use super::abi::{self, CallCtx};
use super::codegen::{self, CodeGen};
use super::interrupt::HandOver;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::ast::Module as VModule;
use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use std::collections::HashMap;
use std::mem::ManuallyDrop;

/// `i32 f__entry(ptr ctx, ptr args, ptr results)`.
pub type EntryFn = unsafe extern "C" fn(*mut CallCtx, *const *mut u8, *const *mut u8) -> i32;

pub struct JitModule {
    /// MCJIT's engine, or None for code loaded from an object file (`object.rs`).
    engine: Option<ManuallyDrop<ExecutionEngine<'static>>>,
    context: *mut Context,
    entries: HashMap<String, EntryFn>,
    /// What keeps code loaded from an object file alive (an ORC LLJIT).
    loaded: Option<Box<dyn std::any::Any>>,
}

impl JitModule {
    pub fn entry(&self, name: &str) -> Option<EntryFn> {
        self.entries.get(name).copied()
    }

    /// Code loaded by another engine: `owner` keeps it alive as long as this lives.
    pub(super) fn loaded(entries: HashMap<String, EntryFn>, owner: Box<dyn std::any::Any>) -> Self {
        JitModule {
            engine: None,
            context: std::ptr::null_mut(),
            entries,
            loaded: Some(owner),
        }
    }
}

impl Drop for JitModule {
    fn drop(&mut self) {
        // SAFETY: the engine (and the module it owns) borrow the context; drop them first.
        // `context` came from Box::into_raw in `compile` and is freed exactly once here.
        unsafe {
            if let Some(engine) = self.engine.as_mut() {
                ManuallyDrop::drop(engine);
                drop(Box::from_raw(self.context));
            }
        }
        drop(self.loaded.take());
    }
}

pub(super) fn internal(msg: impl std::fmt::Display) -> VrError {
    VrError::new(ErrorKind::Internal, format!("cpu backend: {msg}"))
}

/// LLVM's target registry is global: initialise it once per process, not per compile
/// (compiles may run on several threads).
fn init_native() -> VrResult<()> {
    static INIT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()))
        .clone()
        .map_err(internal)
}

pub(super) fn host_machine() -> VrResult<TargetMachine> {
    host_machine_with(RelocMode::Default, CodeModel::JITDefault)
}

/// A target machine for the host CPU with its features.
pub(super) fn host_machine_with(reloc: RelocMode, code_model: CodeModel) -> VrResult<TargetMachine> {
    init_native()?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(internal)?;
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    target
        .create_target_machine(
            &triple,
            cpu.to_str().unwrap_or("generic"),
            features.to_str().unwrap_or(""),
            OptimizationLevel::Default,
            reloc,
            code_model,
        )
        .ok_or_else(|| internal("no target machine for the host"))
}

/// Textual LLVM IR of a module before optimization and without host attributes (stable
/// across machines: used by snapshots and `vr dump`).
pub fn emit_ir(vm: &VModule) -> VrResult<String> {
    let cx = Context::create();
    let module = CodeGen::new(&cx, vm).generate()?;
    Ok(module.print_to_string().to_string())
}

/// Give every defined function the host CPU's name and features, so MCJIT emits code for
/// this machine (vector width included) and not generic x86-64.
pub(super) fn add_host_attributes(module: &Module, cx: &Context) {
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    let cpu_attr = cx.create_string_attribute("target-cpu", cpu.to_str().unwrap_or("generic"));
    let feat_attr = cx.create_string_attribute("target-features", features.to_str().unwrap_or(""));
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 {
            f.add_attribute(AttributeLoc::Function, cpu_attr);
            f.add_attribute(AttributeLoc::Function, feat_attr);
        }
    }
}

/// Mark `alwaysinline` the functions that only their entry wrapper calls: those no other
/// VRIR function calls or maps, and every no-alias version (`codegen/entry_versions.rs`;
/// only its entry calls it). Why: compile latency (issue 18). `default<O2>` inlines them
/// into the entry anyway (one call site of an internal function), but its CGSCC order
/// first runs the whole function-simplification pipeline on the function, then inlines
/// it and runs it again on the entry that now holds the same body: twice the work on the
/// largest function of the module. The always-inliner runs before that pipeline, so
/// the body is simplified once, inside the entry, and the emptied function is deleted.
/// The code that runs is the same body optimized in the same place (measured in
/// bench/RESULTS.md "Compile latency": O2 time -25% on growcut, kernel times unchanged).
/// Applied after generation (like the host attributes), so `emit_ir` stays as generated.
pub(super) fn inline_into_entries(module: &Module, cx: &Context, vm: &VModule) {
    let called = super::callgraph::called_functions(vm);
    let always = cx.create_enum_attribute(
        inkwell::attributes::Attribute::get_named_enum_kind_id("alwaysinline"),
        0,
    );
    for f in &vm.functions {
        let name = codegen::internal_name(&f.name);
        let only_from_entry = [
            (!called.contains(&f.name)).then(|| name.clone()),
            Some(format!("{name}.noalias")),
        ];
        for n in only_from_entry.into_iter().flatten() {
            if let Some(llfn) = module.get_function(&n) {
                llfn.add_attribute(AttributeLoc::Function, always);
            }
        }
    }
}

/// `VR_DUMP_LLVM=DIR`: write the LLVM IR of every module compiled in this process into
/// the folder DIR, as generated (`MODULE.BACKEND.N.pre.ll`) and after the
/// `default<O2>` pipeline (`MODULE.BACKEND.N.ll`), BACKEND `cpu` or `cpu-par` and N
/// counting compiles in the process. For reading what LLVM made of a function (did the
/// loop vectorize, were the descriptors hoisted); failures to write are reported on
/// stderr and otherwise ignored (a diagnostic must not change what compiles).
pub(super) struct IrDump {
    path: Option<std::path::PathBuf>,
}

impl IrDump {
    pub(super) fn new(vm: &VModule, parallel: bool) -> IrDump {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let path = std::env::var_os("VR_DUMP_LLVM").filter(|d| !d.is_empty()).map(|d| {
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let backend = if parallel { "cpu-par" } else { "cpu" };
            std::path::PathBuf::from(d).join(format!("{}.{backend}.{n}", vm.name))
        });
        IrDump { path }
    }

    /// Write `module` as `PATH.SUFFIX.ll` (when dumping).
    pub(super) fn write(&self, module: &Module, suffix: &str) {
        let Some(base) = &self.path else { return };
        let mut name = base.clone().into_os_string();
        name.push(suffix);
        name.push(".ll");
        let name = std::path::PathBuf::from(name);
        let written = name
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&name, module.print_to_string().to_bytes()));
        if let Err(e) = written {
            eprintln!("VR_DUMP_LLVM: cannot write {}: {e}", name.display());
        }
    }
}

/// Rust helpers and C math functions that generated code may call, by address.
pub(super) fn runtime_symbols() -> Vec<(&'static str, usize)> {
    let mut v: Vec<(&'static str, usize)> = vec![
        (
            codegen::RECORD_ERROR,
            abi::vr_cpu_record_error as *const () as usize,
        ),
        (
            codegen::RECORD_ERROR_AT,
            abi::vr_cpu_record_error_at as *const () as usize,
        ),
        (
            codegen::ALLOC_ARRAY,
            abi::vr_cpu_alloc_array as *const () as usize,
        ),
        (
            codegen::MATMUL,
            super::matmul::vr_cpu_matmul as *const () as usize,
        ),
        (
            codegen::PARFOR,
            super::parallel::vr_cpu_parfor as *const () as usize,
        ),
        (
            codegen::PARFOR_SERIAL,
            super::parallel::vr_cpu_parfor_serial as *const () as usize,
        ),
        (
            codegen::OFFLOAD,
            super::offload::vr_cpu_offload as *const () as usize,
        ),
        (
            codegen::RANDOM,
            super::random::vr_cpu_random as *const () as usize,
        ),
        (codegen::FILL, abi::vr_cpu_fill as *const () as usize),
        (
            codegen::IPOW_I32,
            abi::vr_cpu_ipow_i32 as *const () as usize,
        ),
        (
            codegen::IPOW_I64,
            abi::vr_cpu_ipow_i64 as *const () as usize,
        ),
    ];
    v.extend(super::libm::symbols());
    v.extend(super::complex_rt::symbols());
    v
}

/// The LLVM optimization level for `opt_level` 0 to 3 (larger values count as 3).
pub fn llvm_opt_level(opt_level: u8) -> OptimizationLevel {
    match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    }
}

/// The quick tier's IR pipeline (`cpu::tiers`): inlining (the entry wrappers' callees
/// are `alwaysinline`), then per function SROA (variables into registers), early CSE,
/// instcombine and CFG cleanup; no loop passes, no vectorizer. `VR_QUICK_PIPELINE`
/// replaces it (a pass-pipeline text, for measurement). `no-verify-fixpoint`: a bare
/// `instcombine` in a pipeline text asks LLVM 19 to abort the process when one
/// iteration does not reach a fixpoint (the default pipelines ask it not to).
const QUICK_PIPELINE: &str =
    "cgscc(inline,function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg))";

/// What LLVM runs on a module: its IR pass pipeline and the code generator's level.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pipeline {
    /// 0 to 3: `default<O{n}>` and the same code generator level.
    pub opt_level: u8,
    /// The quick tier instead: [`QUICK_PIPELINE`] and the code generator at -O1.
    pub quick: bool,
}

impl Pipeline {
    pub(super) fn of(opts: &super::CpuOptions) -> Pipeline {
        Pipeline { opt_level: opts.opt_level.min(3), quick: opts.quick }
    }

    fn passes(&self) -> String {
        if self.quick {
            static CHOSEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
            return CHOSEN
                .get_or_init(|| {
                    std::env::var("VR_QUICK_PIPELINE")
                        .ok()
                        .filter(|p| !p.is_empty())
                        .unwrap_or_else(|| QUICK_PIPELINE.to_string())
                })
                .clone();
        }
        format!("default<O{}>", self.opt_level)
    }

    pub(super) fn codegen_level(&self) -> OptimizationLevel {
        if self.quick {
            // The code generator at -O1: SelectionDAG and the greedy register allocator
            // (loop code 3-4x faster than the fast selector's and allocator's, for 2.5x
            // the compile time; bench/RESULTS.md "Tiered compilation").
            // `VR_QUICK_CODEGEN=none|default`: at -O0 or -O2 instead (for measurement).
            static LEVEL: std::sync::OnceLock<OptimizationLevel> = std::sync::OnceLock::new();
            *LEVEL.get_or_init(|| match std::env::var("VR_QUICK_CODEGEN").ok().as_deref() {
                Some("none") => OptimizationLevel::None,
                Some("default") => OptimizationLevel::Default,
                _ => OptimizationLevel::Less,
            })
        } else {
            llvm_opt_level(self.opt_level)
        }
    }
}

/// Compile `vm` with the `default<O{opt_level}>` pipeline (0 to 3), or the quick tier's
/// (`opts.quick`), and the code generator's switches in `opts` (see [`super::CpuOptions`]), calling `offload`'s engine
/// at the actions of its plan, if any.
pub fn compile(
    vm: &VModule,
    opts: super::CpuOptions,
    offload: Option<&crate::runtime::offload::OffloadPlan>,
) -> VrResult<JitModule> {
    let pipeline = Pipeline::of(&opts);
    let t = std::time::Instant::now();
    let tm = host_machine()?;
    let context: &'static Context = Box::leak(Box::new(Context::create()));
    let context_ptr = context as *const Context as *mut Context;
    // From here on, any early return must free the context: wrap the rest.
    crate::compile_phases::record("target-machine+context", t);
    let generated = generate_module(context, vm, opts, &tm, offload);
    let (module, dump) = match generated {
        Ok(m) => m,
        Err(e) => {
            // SAFETY: generate_module dropped the module, the context's only borrower.
            unsafe { drop(Box::from_raw(context_ptr)) };
            return Err(e);
        }
    };
    let names: Vec<String> = vm.functions.iter().map(|f| f.name.clone()).collect();
    // LLVM's phases on a thread of their own, so that an interrupt need not wait for them
    // (interrupt::off_thread); the context, module and machine go along, whole.
    let job = HandOver((module, tm, dump, HandOver(context_ptr)));
    let finished = crate::cpu::interrupt::off_thread("LLVM's optimization passes", move || {
        let (module, tm, dump, context_ptr) = job.into_inner();
        let context_ptr = context_ptr.into_inner();
        let result = llvm_phases(&module, &tm, &dump, pipeline, &names);
        drop(module);
        drop(tm);
        HandOver(match result {
            Ok((engine, entries)) => Ok(JitModule {
                engine: Some(ManuallyDrop::new(engine)),
                context: context_ptr,
                entries,
                loaded: None,
            }),
            Err(e) => {
                // SAFETY: the module, the only borrower of the context left, was dropped.
                unsafe { drop(Box::from_raw(context_ptr)) };
                Err(e)
            }
        })
    })?;
    finished.0
}

/// `vm` as an LLVM module in `context` for the machine `tm`: host attributes, the
/// callees only an entry calls inlined, the `.pre` dump written; up to the safe point
/// before LLVM's passes. The caller frees the context on an error.
pub(super) fn generate_module(
    context: &'static Context,
    vm: &VModule,
    opts: super::CpuOptions,
    tm: &TargetMachine,
    offload: Option<&crate::runtime::offload::OffloadPlan>,
) -> VrResult<(Module<'static>, IrDump)> {
    let t = std::time::Instant::now();
    let module = CodeGen::new(context, vm)
        .with_parallel(opts.parallel)
        .with_alias_versions(opts.alias_versions)
        .with_privatize_atomics(opts.privatize_atomics)
        .with_offload(offload)
        .generate()?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    add_host_attributes(&module, context);
    inline_into_entries(&module, context, vm);
    let dump = IrDump::new(vm, opts.parallel);
    dump.write(&module, ".pre");
    crate::compile_phases::record("codegen", t);
    crate::cpu::interrupt::check_compile("LLVM's optimization passes")?;
    Ok((module, dump))
}

/// LLVM's IR pipeline (`default<O{opt_level}>` or the quick tier's) on `module` (its
/// dump written after), up to the safe point before machine code generation; shared by
/// the JIT and the object file.
pub(super) fn optimize_module(
    module: &Module<'static>,
    tm: &TargetMachine,
    dump: &IrDump,
    pipeline: Pipeline,
) -> VrResult<()> {
    let t = std::time::Instant::now();
    module
        .run_passes(&pipeline.passes(), tm, PassBuilderOptions::create())
        .map_err(internal)?;
    crate::compile_phases::record("llvm-opt", t);
    dump.write(module, "");
    crate::cpu::interrupt::check_compile("LLVM's machine code generation")
}

/// LLVM's optimization pipeline and MCJIT's machine code for `module`, and the entries
/// of the functions `names`.
fn llvm_phases(
    module: &Module<'static>,
    tm: &TargetMachine,
    dump: &IrDump,
    pipeline: Pipeline,
    names: &[String],
) -> VrResult<(ExecutionEngine<'static>, HashMap<String, EntryFn>)> {
    optimize_module(module, tm, dump, pipeline)?;
    let t = std::time::Instant::now();
    let engine = module
        .create_jit_execution_engine(pipeline.codegen_level())
        .map_err(internal)?;
    crate::compile_phases::record("mcjit.create", t);
    for (name, addr) in runtime_symbols() {
        if let Some(f) = module.get_function(name) {
            engine.add_global_mapping(&f, addr);
        }
    }
    if let Some(g) = module.get_global(super::interrupt::SOURCE_SYMBOL) {
        engine.add_global_mapping(&g, super::interrupt::source_address());
    }
    let mut entries = HashMap::new();
    for name in names {
        let addr = engine
            .get_function_address(&codegen::entry_name(name))
            .map_err(internal)?;
        // SAFETY: the entry wrapper was generated with exactly this signature.
        let entry: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(addr) };
        entries.insert(name.clone(), entry);
    }
    crate::compile_phases::record("mcjit", t);
    Ok((engine, entries))
}
