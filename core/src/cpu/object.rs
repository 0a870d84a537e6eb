//! Machine code that outlives the process, for the on-disk cache (`runtime::disk_cache`):
//! a module compiled to a relocatable ELF object, and an object loaded back and linked
//! in process by ORC's LLJIT (LLVM's C API, through the llvm-sys that inkwell re-exports).
//!
//! Why an object file and LLJIT, not a shared library and `dlopen`: generated code calls
//! the Rust run-time helpers (`vr_cpu_record_error`, `vr_cpu_alloc_array`, ...) and C
//! math functions; MCJIT binds them by address when it compiles. Those addresses change
//! from one process to the next (ASLR), so cached code must leave them as undefined
//! symbols and have them resolved again at load. LLJIT does exactly that: we define each
//! helper as an absolute symbol at this process's address and let the rest (`memcpy`,
//! `memset`) resolve against the process, then link the object in memory. A `.so` would
//! need a linker at compile time, a file per entry to `dlopen`, and its helpers exported
//! from whatever binary hosts us (R, Octave, Python) — none of which we control.
//!
//! The object is compiled position-independent (small code model): the JIT linker places
//! it anywhere and reaches far helpers through stubs.

use super::interrupt::HandOver;
use super::codegen;
use super::jit::{self, internal, EntryFn};
use super::{CompiledModule, CpuOptions};
use crate::runtime::error::VrResult;
use crate::vrir::ast::Module as VModule;
use inkwell::context::Context;
use inkwell::llvm_sys;
use inkwell::targets::{CodeModel, FileType, RelocMode, TargetMachine};
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use std::collections::HashMap;
use std::ffi::{CStr, CString};

/// Everything besides the module that decides the machine code: target triple, CPU,
/// CPU features, LLVM version. Part of the disk cache key.
pub fn target_id() -> String {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: plain out-parameters.
    unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!(
        "triple={} cpu={} features={} llvm={major}.{minor}.{patch}",
        TargetMachine::get_default_triple().as_str().to_string_lossy(),
        TargetMachine::get_host_cpu_name().to_str().unwrap_or("?"),
        TargetMachine::get_host_cpu_features().to_str().unwrap_or("?"),
    )
}

/// `vm` (verified) compiled with `default<O{opt_level}>` for the host CPU (parallel code
/// when `opts.parallel`), as the bytes of a relocatable object file.
pub fn emit_object(vm: &VModule, opts: CpuOptions) -> VrResult<Vec<u8>> {
    // Objects are what the disk cache keeps for later processes: always full strength.
    let pipeline = jit::Pipeline { quick: false, ..jit::Pipeline::of(&opts) };
    let t = std::time::Instant::now();
    let tm = jit::host_machine_with(RelocMode::PIC, CodeModel::Small)?;
    // Leaked so that the module can go to LLVM's thread with it (freed there).
    let cx: &'static Context = Box::leak(Box::new(Context::create()));
    let cx_ptr = cx as *const Context as *mut Context;
    crate::compile_phases::record("target-machine+context", t);
    let generated = jit::generate_module(cx, vm, opts, &tm, None);
    let (module, dump) = match generated {
        Ok(m) => m,
        Err(e) => {
            // SAFETY: generate_module dropped the module, the context's only borrower.
            unsafe { drop(Box::from_raw(cx_ptr)) };
            return Err(e);
        }
    };
    // LLVM's phases off this thread, as in jit::compile (interrupt::off_thread says why).
    let job = HandOver((module, tm, dump, HandOver(cx_ptr)));
    crate::cpu::interrupt::off_thread("LLVM's optimization passes", move || {
        let (module, tm, dump, cx_ptr) = job.into_inner();
        let cx_ptr = cx_ptr.into_inner();
        let bytes = (|| -> VrResult<Vec<u8>> {
            jit::optimize_module(&module, &tm, &dump, pipeline)?;
            let t = std::time::Instant::now();
            let buf = tm
                .write_to_memory_buffer(&module, FileType::Object)
                .map_err(internal)?;
            crate::compile_phases::record("object-emit", t);
            Ok(buf.as_slice().to_vec())
        })();
        drop(module);
        drop(tm);
        // SAFETY: the module, the context's only borrower, was dropped just above.
        unsafe { drop(Box::from_raw(cx_ptr)) };
        bytes
    })?
}

/// Take an LLVM error's message (and free the error).
fn take_error(e: LLVMErrorRef, what: &str) -> VrResult<()> {
    if e.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null error from the C API, consumed exactly once here.
    let msg = unsafe {
        let p = LLVMGetErrorMessage(e);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(p);
        s
    };
    Err(internal(format!("{what}: {msg}")))
}

/// An LLJIT instance; disposing it frees the code it linked.
struct Lljit(LLVMOrcLLJITRef);

impl Drop for Lljit {
    fn drop(&mut self) {
        // SAFETY: created by LLVMOrcCreateLLJIT, disposed once.
        let e = unsafe { LLVMOrcDisposeLLJIT(self.0) };
        let _ = take_error(e, "disposing the JIT");
    }
}

/// Link an object from [`emit_object`] for `vm` into this process (with the same
/// `opts.parallel` it was emitted with). Fails (never crashes) on an object that does
/// not link: the caller then rebuilds it.
pub fn load_object(vm: &VModule, object: &[u8], opts: CpuOptions) -> VrResult<CompiledModule> {
    crate::vrir::verify::verify_module(vm)?;
    jit::host_machine()?; // initialises the native target once
    // SAFETY: the LLVM C API used as documented; every ref is owned as its docs say
    // (builder, buffer and symbol names are consumed by the calls they are passed to).
    unsafe {
        let mut raw: LLVMOrcLLJITRef = std::ptr::null_mut();
        take_error(LLVMOrcCreateLLJIT(&mut raw, LLVMOrcCreateLLJITBuilder()), "creating the JIT")?;
        let lljit = Lljit(raw);
        let jd = LLVMOrcLLJITGetMainJITDylib(raw);

        // This process's helpers, by address.
        let mut pairs: Vec<LLVMOrcCSymbolMapPair> = jit::runtime_symbols()
            .into_iter()
            .map(|(name, addr)| {
                let c = CString::new(name).expect("symbol names have no NUL");
                LLVMOrcCSymbolMapPair {
                    Name: LLVMOrcLLJITMangleAndIntern(raw, c.as_ptr()),
                    Sym: LLVMJITEvaluatedSymbol {
                        Address: addr as u64,
                        Flags: LLVMJITSymbolFlags {
                            GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported
                                as u8
                                | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                            TargetFlags: 0,
                        },
                    },
                }
            })
            .collect();
        // The interrupt flag's source pointer: data, not code.
        let source = CString::new(super::interrupt::SOURCE_SYMBOL).expect("no NUL");
        pairs.push(LLVMOrcCSymbolMapPair {
            Name: LLVMOrcLLJITMangleAndIntern(raw, source.as_ptr()),
            Sym: LLVMJITEvaluatedSymbol {
                Address: super::interrupt::source_address() as u64,
                Flags: LLVMJITSymbolFlags {
                    GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8,
                    TargetFlags: 0,
                },
            },
        });
        let mu = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
        take_error(LLVMOrcJITDylibDefine(jd, mu), "defining the run-time helpers")?;
        // Anything else (memcpy, memset) from the process.
        let mut generator: LLVMOrcDefinitionGeneratorRef = std::ptr::null_mut();
        take_error(
            LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                LLVMOrcLLJITGetGlobalPrefix(raw),
                None,
                std::ptr::null_mut(),
            ),
            "searching the process for symbols",
        )?;
        LLVMOrcJITDylibAddGenerator(jd, generator);

        let name = CString::new(format!("{}.o", vm.name)).unwrap_or_default();
        let buffer = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
            object.as_ptr() as *const _,
            object.len(),
            name.as_ptr(),
        );
        take_error(LLVMOrcLLJITAddObjectFile(raw, jd, buffer), "adding the cached object")?;

        let mut entries = HashMap::new();
        for f in &vm.functions {
            let sym = CString::new(codegen::entry_name(&f.name)).unwrap_or_default();
            let mut addr: LLVMOrcExecutorAddress = 0;
            take_error(
                LLVMOrcLLJITLookup(raw, &mut addr, sym.as_ptr()),
                &format!("linking the cached code of `{}`", f.name),
            )?;
            if addr == 0 {
                return Err(internal(format!("cached code of `{}` has no entry", f.name)));
            }
            // SAFETY: the entry wrapper was generated with exactly this signature.
            let entry: EntryFn = std::mem::transmute::<usize, EntryFn>(addr as usize);
            entries.insert(f.name.clone(), entry);
        }
        Ok(CompiledModule {
            module: vm.clone(),
            jit: jit::JitModule::loaded(entries, Box::new(lljit)),
            recursive: super::callgraph::is_recursive(vm),
            alloc_limit: super::abi::DEFAULT_ALLOC_LIMIT,
            threads: super::threads_for(&opts),
            noalias_calls: Default::default(),
            // Code with offload actions is never written to the disk cache.
            offload: None,
            tier_up: None,
        })
    }
}
