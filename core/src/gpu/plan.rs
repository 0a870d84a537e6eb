//! Placing a module's `on_gpu` sections: which statements become GPU tasks, where the CPU
//! code between them must synchronise, where sections end (the plan of
//! `runtime::offload`, plus what each action means to the engine).
//!
//! Inside a section, statement by statement:
//! - a `parfor` whose body the kernel generator compiles is a task (its own CPU code
//!   stays compiled and runs when the task is declined at run time);
//! - `(set b (copy a))` of array variables is a task (VRRuntime's copy-on-potential-write);
//! - `if`, `for` and `while` stay CPU control flow: their condition or domain is a
//!   synchronisation point for the arrays it reads (a `while` condition at every test),
//!   and their bodies are planned the same way; a `for` whose iterations are independent
//!   is also a task, a kernel of one work item per iteration (`kernel/loop_kernels.rs`),
//!   whose CPU code (so planned) runs where the task is declined;
//! - every other statement runs on the CPU after a synchronisation for the arrays it
//!   mentions (those it may write marked so: stores, arrays passed to calls, atomics);
//! - `return`, and `break`/`continue` leaving the section, end the section first, as
//!   does falling off its end.
//!
//! Parfors outside sections are the CPU's (cpu-par). A section nested in a section is a
//! plain block of the outer one.
//!
//! Outside sections, in every function that runs sections (itself or through calls):
//! VRRuntime keeps device copies across sections (residency), so every CPU write between
//! them is reported: a statement that reaches no section gets one `Sync` before it naming
//! the arrays it may write (stores, atomics, arrays passed to functions that run no
//! section and may write them), a statement holding arrays in a tuple a `ForgetAll`;
//! statements that reach a section are entered (the loop around a section gets its
//! body's syncs, run at every iteration), and a `parfor` that does also gets one sync
//! for its whole body (its workers run without the session).

use super::kernel::{compile_for, compile_parfor, loop_kernels, Kernel};
use super::library::{compile_stmt, copy_kernel, LibKernel};
use crate::runtime::offload::{Action, FunctionPlan, OffloadPlan, StmtPlan};
use crate::vrir::ast::{Expr, Function, LValue, LibFn, Module, Stmt, StmtKind};
use crate::vrir::types::Type;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// What an action means to the engine.
#[derive(Clone, Debug)]
pub enum GpuAction {
    /// CPU code follows that reads the action's arrays (and writes those marked).
    Sync { writes: Vec<bool> },
    /// A section begins (sections nest dynamically when one calls a function that has
    /// its own: only the outermost one's end may drop what it does not keep).
    BeginSection,
    /// The section ends: the tables are cleared after bringing home what only the
    /// device holds: all of it when `keep_all`, else only the bytes of the action's
    /// arrays, `keep` of them (every array that code after the section may read); the
    /// rest (dead temporaries, arrays no variable refers to any more) is dropped unread.
    EndSection { keep_all: bool, keep: usize },
    /// Run a parfor as a kernel.
    Parfor {
        kernel: Arc<Kernel>,
        function: String,
    },
    /// `vars[0] = copy(vars[1])`, deferred (copy-on-potential-write); the layout of
    /// `vars[0]`'s type (the new array's storage order); `gather`: the kernel that copies
    /// a source the deferred copy cannot take (not contiguous in that order).
    Copy {
        layout: crate::vrir::types::Layout,
        gather: Option<Arc<LibKernel>>,
    },
    /// A library operation (`gpu/library`): element-wise trees, reductions, matmul,
    /// transpose, copying slices.
    Library {
        kernel: Arc<LibKernel>,
        function: String,
    },
    /// CPU code outside sections may write arrays the plan cannot name (through a
    /// tuple): every device copy is brought home and forgotten.
    ForgetAll,
}

/// A module's plan for the GPU.
#[derive(Clone, Debug, Default)]
pub struct GpuPlan {
    pub offload: OffloadPlan,
    pub actions: HashMap<u32, GpuAction>,
    /// Per statement placed on the CPU inside a section, why (for `explain` and notes).
    pub notes: Vec<String>,
    /// Per kernel, the code generator's optimisations that fired on it (`kernel/passes.rs`;
    /// for `explain`): `f line 9: kernel vr_f_0: ndrange-loops: ...`.
    pub passes: Vec<String>,
    /// Sections found.
    pub sections: usize,
    /// Per section (numbered from 0 in the order found): where it is.
    pub section_info: Vec<SectionInfo>,
    /// The section each action belongs to.
    pub section_of: HashMap<u32, usize>,
    /// Kernels of serial loops (`loop-kernels`), numbered in the order found.
    pub loop_tasks: Vec<String>,
    /// Synchronisations inside such a loop's CPU code (the code that runs when its task
    /// is declined), by action: the loop's number in `loop_tasks`. The placement model
    /// charges them to the CPU choice of that loop, not to the device.
    pub nested_in: HashMap<u32, usize>,
}

/// Where a section is, for reports: its function and the lines its statements span.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SectionInfo {
    pub function: String,
    pub first_line: Option<u32>,
    pub last_line: Option<u32>,
}

impl SectionInfo {
    /// `f, lines 3-7` (or `f` when the front end gave no lines).
    pub fn describe(&self) -> String {
        match (self.first_line, self.last_line) {
            (Some(a), Some(b)) if a != b => format!("{}, lines {a}-{b}", self.function),
            (Some(a), _) => format!("{}, line {a}", self.function),
            _ => self.function.clone(),
        }
    }
}

impl GpuPlan {
    /// Parfors compiled to kernels.
    pub fn kernels(&self) -> usize {
        self.actions
            .values()
            .filter(|a| matches!(a, GpuAction::Parfor { .. }))
            .count()
    }

    /// How many kernels each code-generator optimisation fired on.
    pub fn pass_counts(&self) -> std::collections::BTreeMap<&'static str, usize> {
        let mut n: std::collections::BTreeMap<&'static str, usize> =
            super::kernel::passes::ALL.iter().map(|p| (*p, 0)).collect();
        for a in self.actions.values() {
            if let GpuAction::Parfor { kernel, .. } = a {
                for (p, _) in &kernel.passes {
                    *n.entry(p).or_default() += 1;
                }
            }
        }
        n
    }

    /// `; gpu ...` lines for `vr explain`: kernels, the code generator's passes that
    /// fired (per kernel of `function`) and why statements of `function` stay on the CPU.
    pub fn explain(&self, function: &str) -> String {
        if self.sections == 0 {
            return String::new();
        }
        let counts: Vec<String> = self
            .pass_counts()
            .into_iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect();
        let mut out = format!(
            "; gpu: {} section(s), {} kernel(s); passes fired (VR_GPU_PASSES): {}\n",
            self.sections,
            self.kernels(),
            counts.join(", ")
        );
        let prefix = format!("{function} line");
        for p in self.passes.iter().filter(|p| p.starts_with(&prefix)) {
            out.push_str(&format!("; gpu pass: {p}\n"));
        }
        for n in self.notes.iter().filter(|n| n.starts_with(&prefix)) {
            out.push_str(&format!("; gpu note: {n}\n"));
        }
        out
    }

    /// Library operations placed on the device.
    pub fn library_tasks(&self) -> usize {
        self.actions
            .values()
            .filter(|a| matches!(a, GpuAction::Library { .. }))
            .count()
    }
}

struct Planner<'m> {
    m: &'m Module,
    f: &'m Function,
    ids: HashMap<*const Stmt, usize>,
    plan: FunctionPlan,
    out: &'m mut GpuPlan,
    next_id: &'m mut u32,
    kernels: usize,
    live: crate::analysis::liveness::LiveVars,
    /// Functions that run sections, themselves or through calls.
    gpu_fns: &'m BTreeSet<String>,
    /// Planning statements inside a section (actions belong to it).
    in_section: bool,
    /// Planning the body of a serial loop that is also a task: its number in
    /// `GpuPlan::loop_tasks`.
    in_loop_task: Option<usize>,
}

/// Functions of `m` that run a section: those holding one, and those calling one that
/// does (to a fixed point).
fn functions_running_sections(m: &Module) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = m
        .functions
        .iter()
        .filter(|f| {
            crate::analysis::preorder(&f.body)
                .iter()
                .any(|s| matches!(&s.kind, StmtKind::Block(b) if b.on_gpu))
        })
        .map(|f| f.name.clone())
        .collect();
    loop {
        let more: Vec<String> = m
            .functions
            .iter()
            .filter(|f| !out.contains(&f.name))
            .filter(|f| {
                crate::analysis::calls::direct_callees(f)
                    .iter()
                    .any(|c| out.contains(*c))
            })
            .map(|f| f.name.clone())
            .collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}

/// Plan every section of `m` (a verified module).
pub fn plan(m: &Module) -> GpuPlan {
    let mut out = GpuPlan::default();
    let mut next_id = 0u32;
    let gpu_fns = functions_running_sections(m);
    for f in &m.functions {
        let ids = crate::analysis::preorder(&f.body)
            .into_iter()
            .enumerate()
            .map(|(k, s)| (s as *const Stmt, k))
            .collect();
        let mut p = Planner {
            m,
            f,
            ids,
            plan: FunctionPlan::default(),
            out: &mut out,
            next_id: &mut next_id,
            kernels: 0,
            live: crate::analysis::liveness::LiveVars::compute(f),
            gpu_fns: &gpu_fns,
            in_section: false,
            in_loop_task: None,
        };
        p.outside(&f.body);
        let fp = std::mem::take(&mut p.plan);
        if !fp.stmts.is_empty() {
            out.offload.functions.insert(f.name.clone(), fp);
        }
    }
    out
}

impl<'m> Planner<'m> {
    fn at(&mut self, s: &Stmt) -> &mut StmtPlan {
        let id = self.ids[&(s as *const Stmt)];
        self.plan.stmts.entry(id).or_default()
    }

    fn action(&mut self, vars: Vec<(String, Type)>, meaning: GpuAction) -> Action {
        let id = *self.next_id;
        *self.next_id += 1;
        if let (Some(t), GpuAction::Sync { .. }) = (self.in_loop_task, &meaning) {
            self.out.nested_in.insert(id, t);
        }
        self.out.actions.insert(id, meaning);
        if let Some(k) = self.out.sections.checked_sub(1).filter(|_| self.in_section) {
            self.out.section_of.insert(id, k);
        }
        Action {
            id,
            vars,
            values: Vec::new(),
        }
    }

    fn typed(&self, names: impl IntoIterator<Item = String>) -> Vec<(String, Type)> {
        names
            .into_iter()
            .filter_map(|n| self.f.var_type(&n).cloned().map(|t| (n, t)))
            .collect()
    }

    fn note(&mut self, s: &Stmt, why: &str) {
        let line = s.line.map_or(String::new(), |l| format!(" line {l}"));
        self.out
            .notes
            .push(format!("{}{line}: on the CPU: {why}", self.f.name));
    }

    /// Statements outside any section: look for sections.
    fn outside(&mut self, stmts: &'m [Stmt]) {
        for s in stmts {
            match &s.kind {
                StmtKind::Block(b) if b.on_gpu => {
                    self.out.sections += 1;
                    let lines: Vec<u32> = crate::analysis::preorder(&b.stmts)
                        .iter()
                        .filter_map(|x| x.line)
                        .chain(s.line)
                        .collect();
                    self.out.section_info.push(SectionInfo {
                        function: self.f.name.clone(),
                        first_line: lines.iter().min().copied(),
                        last_line: lines.iter().max().copied(),
                    });
                    self.in_section = true;
                    let begin = self.action(Vec::new(), GpuAction::BeginSection);
                    self.at(s).before = Some(begin);
                    self.section(&b.stmts, 0);
                    let id = self.ids[&(s as *const Stmt)];
                    let live_after = self.live.live_out(id).unwrap_or_default();
                    let end = self.end_action(&live_after);
                    self.at(s).after = Some(end);
                    self.in_section = false;
                }
                _ if !self.gpu_fns.contains(&self.f.name) => {
                    // Runs no section: nothing to report (its callers report the arrays
                    // they pass it).
                    for b in crate::analysis::child_blocks(s) {
                        self.outside(&b.stmts);
                    }
                }
                _ if self.reaches_section(s)
                    || matches!(s.kind, StmtKind::If { .. } | StmtKind::Block(_)) =>
                {
                    // Its own expressions (a domain, a condition, a call's arguments)
                    // are reported once; the statements inside it each on their own (an
                    // `if` too: the branch not taken then reports nothing). A loop that
                    // reaches no section is reported whole, once, not at every
                    // iteration.
                    let whole = matches!(s.kind, StmtKind::Parfor { .. });
                    self.host_writes(s, whole);
                    for b in crate::analysis::child_blocks(s) {
                        self.outside(&b.stmts);
                    }
                }
                _ => self.host_writes(s, true),
            }
        }
    }

    /// Whether running `s` may run a section: it holds one, or calls a function that
    /// runs one.
    fn reaches_section(&self, s: &Stmt) -> bool {
        let stmts = std::slice::from_ref(s);
        if crate::analysis::preorder(stmts)
            .iter()
            .any(|x| matches!(&x.kind, StmtKind::Block(b) if b.on_gpu))
        {
            return true;
        }
        let mut calls = false;
        crate::analysis::walk_body_exprs(stmts, &mut |e| {
            if let Expr::Call { func, .. } | Expr::Map { func, .. } = e {
                calls |= self.gpu_fns.contains(func);
            }
        });
        calls
    }

    /// Outside sections: a `Sync` before `s` naming every array it may write (all of
    /// its statements when `whole`, else its own expressions only), so that VRRuntime
    /// drops device copies the CPU makes stale; a `ForgetAll` where it mentions a tuple
    /// holding arrays. Arrays passed to functions that run sections are not named: those
    /// report their own writes.
    fn host_writes(&mut self, s: &'m Stmt, whole: bool) {
        let stmts: Vec<&Stmt> = if whole {
            crate::analysis::preorder(std::slice::from_ref(s))
        } else {
            vec![s]
        };
        let mut written = BTreeSet::new();
        let mut mentioned = BTreeSet::new();
        for x in stmts {
            if let StmtKind::Assign { targets, .. } = &x.kind {
                for t in targets {
                    if let LValue::Index { array, .. } = t {
                        written.insert(array.clone());
                    }
                }
            }
            for e in crate::analysis::stmt_exprs(x) {
                crate::analysis::walk_expr(e, &mut |y| match y {
                    Expr::Var { name } => {
                        mentioned.insert(name.clone());
                    }
                    Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
                        written.insert(array.clone());
                    }
                    Expr::Call { func, args } if !self.gpu_fns.contains(func) => {
                        let may =
                            crate::analysis::param_writes::params_possibly_written(self.m, func);
                        for (k, a) in args.iter().enumerate() {
                            // An argument that is not a plain variable (a view, a
                            // slice) may still share the storage of what it mentions.
                            if may
                                .as_ref()
                                .is_none_or(|w| w.get(k).copied().unwrap_or(true))
                            {
                                crate::analysis::expr_vars(a, &mut written);
                            }
                        }
                    }
                    _ => {}
                });
            }
        }
        let compound = self.typed(mentioned.iter().chain(&written).cloned()).iter().any(
            |(_, t)| matches!(t, Type::Tuple { items } if items.iter().any(|i| matches!(i, Type::Array(_)))),
        );
        let a = if compound {
            self.action(Vec::new(), GpuAction::ForgetAll)
        } else {
            let vars: Vec<(String, Type)> = self
                .typed(written)
                .into_iter()
                .filter(|(_, t)| matches!(t, Type::Array(_)))
                .collect();
            if vars.is_empty() {
                return;
            }
            let n = vars.len();
            self.action(
                vars,
                GpuAction::Sync {
                    writes: vec![true; n],
                },
            )
        };
        if !whole && matches!(s.kind, StmtKind::While { .. }) {
            // The condition's calls run at every test.
            self.at(s).cond = Some(a);
        } else {
            self.at(s).before = Some(a);
        }
    }

    /// Statements of a section; `loops`: loops entered inside the section.
    fn section(&mut self, stmts: &'m [Stmt], loops: usize) {
        for s in stmts {
            self.stmt(s, loops);
        }
    }

    fn stmt(&mut self, s: &'m Stmt, loops: usize) {
        match &s.kind {
            StmtKind::Block(b) => self.section(&b.stmts, loops),
            StmtKind::Parfor { .. } => {
                let name = format!("vr_{}_{}", sanitize(&self.f.name), self.kernels);
                match compile_parfor(self.m, self.f, s, &name) {
                    Ok(k) => self.kernel_task(s, k),
                    Err(why) => {
                        self.note(s, &format!("parfor: {why}"));
                        self.cpu_leaf(s);
                    }
                }
            }
            StmtKind::Assign { targets, value } => {
                if let (
                    [LValue::Var { name: dst }],
                    Expr::Lib {
                        func: LibFn::Copy,
                        args,
                    },
                ) = (targets.as_slice(), value)
                {
                    if let [Expr::Var { name: src }] = args.as_slice() {
                        let is_local_array = self.f.locals.iter().any(|l| &l.name == dst)
                            && matches!(self.f.var_type(dst), Some(Type::Array(_)))
                            && matches!(self.f.var_type(src), Some(Type::Array(_)));
                        if is_local_array && dst != src {
                            let layout = match self.f.var_type(dst) {
                                Some(Type::Array(a)) => a.layout,
                                _ => crate::vrir::types::Layout::Row,
                            };
                            let gather = copy_kernel(self.f, dst, src, s.line).map(Arc::new);
                            let vars = self.typed([dst.clone(), src.clone()]);
                            let a = self.action(vars, GpuAction::Copy { layout, gather });
                            self.at(s).task = Some(a);
                            return;
                        }
                    }
                }
                // Library kernels are named by what they are, so that equal ones share a
                // program (the cache is keyed by source).
                match compile_stmt(self.m, self.f, s, "vr_map") {
                    Some(Ok(k)) => {
                        let mut a = self.action(
                            k.vars.clone(),
                            GpuAction::Library {
                                kernel: Arc::new(k.clone()),
                                function: self.f.name.clone(),
                            },
                        );
                        a.values = k.values.clone();
                        self.at(s).task = Some(a);
                    }
                    Some(Err(why)) => {
                        self.note(s, &why);
                        self.cpu_leaf(s);
                    }
                    None => self.cpu_leaf(s),
                }
            }
            StmtKind::If { cond, then, els } => {
                self.sync_before(s, &[cond]);
                self.section(&then.stmts, loops);
                if let Some(e) = els {
                    self.section(&e.stmts, loops);
                }
            }
            StmtKind::For { domain, body, .. } => {
                self.sync_before(s, &[domain]);
                let task = self.loop_kernel(s);
                // Planned as CPU code as well: it runs where the task is declined.
                let outer = self.in_loop_task;
                self.in_loop_task = task.or(outer);
                self.section(&body.stmts, loops + 1);
                self.in_loop_task = outer;
            }
            StmtKind::While { cond, body } => {
                let reads = self.arrays_in(&[cond]);
                if !reads.is_empty() {
                    let n = reads.len();
                    let a = self.action(
                        reads,
                        GpuAction::Sync {
                            writes: vec![false; n],
                        },
                    );
                    self.at(s).cond = Some(a);
                }
                self.section(&body.stmts, loops + 1);
            }
            StmtKind::Return { .. } => {
                let id = self.ids[&(s as *const Stmt)];
                let live = self.live.live_in(id).unwrap_or_default();
                let end = self.end_action(&live);
                self.at(s).before = Some(end);
            }
            StmtKind::Break | StmtKind::Continue if loops == 0 => {
                let end = self.action(
                    Vec::new(),
                    GpuAction::EndSection {
                        keep_all: true,
                        keep: 0,
                    },
                );
                self.at(s).before = Some(end);
            }
            StmtKind::Break | StmtKind::Continue => {}
            _ => self.cpu_leaf(s),
        }
    }

    /// A parfor's kernel (or a serial loop's) as the task of statement `s`: the domain's
    /// bounds as values compiled code passes, the passes that fired for `explain`.
    fn kernel_task(&mut self, s: &Stmt, k: Kernel) {
        self.kernels += 1;
        let values = k
            .values
            .iter()
            .map(|e| {
                let t = crate::vrir::verify::expr_type(self.m, self.f, e)
                    .ok()
                    .and_then(|t| match t {
                        Type::Scalar { elem } => Some(elem),
                        _ => None,
                    })
                    .unwrap_or(crate::vrir::types::ScalarType::I64);
                (e.clone(), t)
            })
            .collect();
        for (p, what) in &k.passes {
            self.out.passes.push(format!(
                "{} line {}: kernel {}: {p}: {what}",
                self.f.name,
                s.line.map_or("?".to_string(), |l| l.to_string()),
                k.name
            ));
        }
        let vars = k.vars.clone();
        let mut a = self.action(
            vars,
            GpuAction::Parfor {
                kernel: Arc::new(k),
                function: self.f.name.clone(),
            },
        );
        a.values = values;
        self.at(s).task = Some(a);
    }

    /// A serial `for` whose iterations are independent as a kernel of its own
    /// (`loop-kernels`, `kernel/loop_kernels.rs`); nothing when it is not one (its body
    /// is CPU code, planned statement by statement, as it is anyway for a declined task).
    /// Its number in `GpuPlan::loop_tasks` when it is one.
    fn loop_kernel(&mut self, s: &'m Stmt) -> Option<usize> {
        let id = self.ids[&(s as *const Stmt)];
        let live = &self.live;
        loop_kernels::scalars_dead_after(self.f, s, |v| live.is_live_after(id, v)).ok()?;
        let name = format!("vr_{}_{}", sanitize(&self.f.name), self.kernels);
        let k = compile_for(self.m, self.f, s, &name).ok()?;
        self.kernel_task(s, k);
        self.out.loop_tasks.push(name);
        Some(self.out.loop_tasks.len() - 1)
    }

    /// The end of a section where `live` is live: what code after it may read is every
    /// array parameter (the caller sees them) and every live array variable; by address
    /// range, so views and aliases of them come home too. A live variable of another
    /// type that may hold arrays (a tuple) keeps everything.
    fn end_action(&mut self, live: &BTreeSet<String>) -> Action {
        let holds_arrays_otherwise = live.iter().any(|v| {
            matches!(self.f.var_type(v), Some(t) if !matches!(t, Type::Scalar { .. } | Type::Array(_)))
        });
        if holds_arrays_otherwise {
            return self.action(
                Vec::new(),
                GpuAction::EndSection {
                    keep_all: true,
                    keep: 0,
                },
            );
        }
        let names: Vec<String> = self
            .f
            .params
            .iter()
            .map(|p| p.name.clone())
            .chain(live.iter().cloned())
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect();
        let kept: Vec<(String, Type)> = self
            .typed(names)
            .into_iter()
            .filter(|(_, t)| matches!(t, Type::Array(_)))
            .collect();
        let keep = kept.len();
        self.action(
            kept,
            GpuAction::EndSection {
                keep_all: false,
                keep,
            },
        )
    }

    /// Array variables whose elements `exprs` read.
    fn arrays_in(&self, exprs: &[&Expr]) -> Vec<(String, Type)> {
        let mut names = BTreeSet::new();
        for e in exprs {
            data_reads(e, &mut names);
        }
        self.typed(names)
            .into_iter()
            .filter(|(_, t)| matches!(t, Type::Array(_)))
            .collect()
    }

    fn sync_before(&mut self, s: &Stmt, exprs: &[&Expr]) {
        let reads = self.arrays_in(exprs);
        if !reads.is_empty() {
            let n = reads.len();
            let a = self.action(
                reads,
                GpuAction::Sync {
                    writes: vec![false; n],
                },
            );
            self.at(s).before = Some(a);
        }
    }

    /// A statement the CPU runs whole: synchronise every array it mentions (written ones
    /// marked); one holding arrays in a tuple, range or domain ends the section instead.
    fn cpu_leaf(&mut self, s: &'m Stmt) {
        let mut names = BTreeSet::new();
        let mut written = BTreeSet::new();
        let mut compound = false;
        for x in crate::analysis::preorder(std::slice::from_ref(s)) {
            match &x.kind {
                StmtKind::Assign { targets, .. } => {
                    for t in targets {
                        if let LValue::Index { array, .. } = t {
                            names.insert(array.clone());
                            written.insert(array.clone());
                        }
                    }
                }
                StmtKind::Alloc { var, .. } | StmtKind::Free { var } => {
                    names.insert(var.clone());
                }
                _ => {}
            }
            for e in crate::analysis::stmt_exprs(x) {
                data_reads(e, &mut names);
                crate::analysis::walk_expr(e, &mut |y| match y {
                    Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
                        names.insert(array.clone());
                        written.insert(array.clone());
                    }
                    Expr::Call { args, .. } => {
                        // The callee may write any array it is given.
                        for a in args {
                            if let Expr::Var { name } = a {
                                written.insert(name.clone());
                            }
                        }
                    }
                    _ => {}
                });
            }
        }
        let mut vars = Vec::new();
        for (n, t) in self.typed(names) {
            match &t {
                Type::Array(_) => vars.push((n, t)),
                Type::Tuple { items } if items.iter().any(|i| matches!(i, Type::Array(_))) => {
                    compound = true
                }
                _ => {}
            }
        }
        if compound {
            let end = self.action(
                Vec::new(),
                GpuAction::EndSection {
                    keep_all: true,
                    keep: 0,
                },
            );
            self.at(s).before = Some(end);
            return;
        }
        if vars.is_empty() {
            return;
        }
        let writes = vars.iter().map(|(n, _)| written.contains(n)).collect();
        let a = self.action(vars, GpuAction::Sync { writes });
        self.at(s).before = Some(a);
    }
}

/// Variables `e` reads, except arrays it asks only for their extents (`dim`, `len`,
/// `ndims`): those need no synchronisation (VRRuntime's shape table and the host's
/// descriptor agree on extents), so `(zeros T (len x))` after a kernel wrote `x` moves
/// nothing.
fn data_reads(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Var { name } => {
            out.insert(name.clone());
        }
        Expr::Dim { arg, .. } if matches!(arg.as_ref(), Expr::Var { .. }) => {}
        Expr::Lib {
            func: LibFn::Len | LibFn::Ndims,
            args,
        } if matches!(args.as_slice(), [Expr::Var { .. }]) => {}
        _ => {
            for c in crate::analysis::sub_exprs(e) {
                data_reads(c, out);
            }
        }
    }
}

fn sanitize(n: &str) -> String {
    n.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The `on_gpu` blocks of `m` (outermost ones: a block nested in a section is part of
/// it).
pub fn section_count(m: &Module) -> usize {
    fn count(stmts: &[Stmt]) -> usize {
        stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Block(b) if b.on_gpu => 1,
                _ => crate::analysis::child_blocks(s)
                    .iter()
                    .map(|b| count(&b.stmts))
                    .sum(),
            })
            .sum()
    }
    m.functions.iter().map(|f| count(&f.body)).sum()
}

/// `m` with every function body wrapped in one GPU section (`vr test --wrap-gpu`),
/// except functions that draw random numbers (directly or through calls): draws are
/// effects on the host's one serial stream, which the verifier keeps out of sections.
pub fn wrap_in_sections(m: &Module) -> Module {
    wrap_where(m, |_| true)
}

/// `m` with the body of `func` alone wrapped in one GPU section: what a user marks when
/// the function is the kernel (the benchmarks). Its callees keep no section of their
/// own, which would begin and end once per call, at every element when a parfor calls
/// them (`wrap_in_sections` does that, to test nested sections).
pub fn wrap_function_in_section(m: &Module, func: &str) -> Module {
    wrap_where(m, |name| name == func)
}

fn wrap_where(m: &Module, wrap: impl Fn(&str) -> bool) -> Module {
    let draws: Vec<bool> = m
        .functions
        .iter()
        .map(|f| crate::vrir::verify::random::first_draw(m, &f.name).is_some())
        .collect();
    let mut m = m.clone();
    for (f, draws) in m.functions.iter_mut().zip(draws) {
        if draws || !wrap(&f.name) {
            continue;
        }
        let body = std::mem::take(&mut f.body);
        f.body = vec![Stmt::new(StmtKind::Block(crate::vrir::ast::Block {
            on_gpu: true,
            stmts: body,
        }))];
    }
    m
}
