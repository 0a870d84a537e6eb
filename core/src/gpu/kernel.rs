//! OpenCL C for one `parfor` (the jit4opencl thesis' scheme): one work item per point of
//! the domain (a 1-, 2- or 3-D NDRange; perfectly nested parfors merge into one range),
//! the body compiled statement by statement with temporaries, every run-time check of the
//! interpreter kept.
//!
//! Semantics kept bit for bit with the CPU backends: integer arithmetic in two's
//! complement (computed on unsigned types, where C leaves signed overflow undefined),
//! `/`, `idiv`, `mod`, `rem` with the interpreter's rules and its division-by-zero error;
//! casts checked as the interpreter does (NaN and out-of-range floats are errors); no
//! contraction into fused multiply-adds (`FP_CONTRACT OFF`) and correctly rounded f32
//! division and square root (build option), so `+ - * / sqrt` agree exactly. The
//! transcendental functions are OpenCL's, which may differ from the CPU's libm in the last
//! bits (docs/gpu.md gives the bounds).
//!
//! Errors: a failing work item records (its iteration's number in the serial order,
//! the failing check's site, its values) in the launch's error slot and stops; the
//! slot keeps the lowest iteration number by `atomic_min`, so the host reports the error
//! the serial loop meets first (see [`ERR_RECORDS`]). Sites name the function, line,
//! variable and the shape of the access, so the host words the message exactly as the
//! cpu backend does.
//!
//! What it does not compile yet (the parfor then runs on the CPU, and `explain` says
//! why): complex numbers, calls of module functions, array-valued expressions, slices and
//! views, `map`, allocation, tuples, ranges as values, loops over non-literal domains,
//! more than three merged dimensions.

mod groups;
pub mod loop_kernels;
mod proven_bounds;
mod ndrange;
pub mod passes;
mod tile;

use crate::runtime::offload::elem_size;
use crate::vrir::ast::{
    BinOp, Block, Expr, Function, IndexFlags, LValue, LibFn, Literal, Module, Stmt, StmtKind,
    UnOp,
};
use crate::vrir::types::{Layout, ScalarType, Type};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Arc;

/// Records an error slot holds; the lowest iteration is always among them (see
/// `vr_fail` in [`PRELUDE`]).
pub const ERR_RECORDS: usize = 16;
/// 64-bit words per record: iteration, site, index, bound, dim, four note values.
pub const ERR_WORDS: usize = 9;
/// Words of a whole slot: a header word (two ints: lowest failing iteration, records
/// written) then the records.
pub const ERR_SLOT_WORDS: usize = 1 + ERR_RECORDS * ERR_WORDS;
/// Indices an out-of-bounds note keeps (the access's first four).
pub const NOTE_INDICES: usize = 4;

/// What went wrong at a site (the host decodes it with the cpu backend's wording).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    OutOfBounds,
    DivisionByZero,
    /// index: the value's f64 bits; bound / dim: source / target `ScalarType` positions.
    InvalidCast,
    Unassigned,
    NegativeExponent,
    ZeroStep,
    MissingReturn,
}

/// One check of the kernel that can fail.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub kind: SiteKind,
    /// The function whose code holds the check (the parfor's, or one it calls).
    pub function: String,
    pub line: Option<u32>,
    pub variable: Option<String>,
    /// For out-of-bounds: the access's shape as the cpu backend writes it (`S,S`).
    pub note: String,
}

/// How the engine fills one kernel parameter (beyond the error slot, which comes first).
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// `long start, long step, long count` of domain dimension k (from the action's
    /// values 3k, 3k+1, 3k+2 as start, stop, step: the engine derives the count).
    Range(usize),
    /// `__global T* data, long offset, long dims[n], long strides[n], int set` of the
    /// action's variable `var`.
    Array {
        var: usize,
        ndims: usize,
        elem: ScalarType,
    },
    /// `T value, int set` of the action's scalar variable `var`.
    Scalar { var: usize, elem: ScalarType },
}

/// A parfor compiled to OpenCL C.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub source: String,
    /// Dimensions of the NDRange (merged nested parfors).
    pub dims: usize,
    /// The loop variables, outermost first, as action variable indices (the engine sets
    /// them to the last point afterwards, as the CPU backends leave them).
    pub loop_vars: Vec<usize>,
    pub params: Vec<Param>,
    pub sites: Vec<Site>,
    pub fp64: bool,
    pub int64_atomics: bool,
    /// Action variable indices of the arrays the body may write.
    pub writes: BTreeSet<usize>,
    /// The variables the action passes (name, type), in order.
    pub vars: Vec<(String, Type)>,
    /// The scalar expressions the action passes: per dimension start, stop, step.
    pub values: Vec<Expr>,
    /// The parfor statement's source line.
    pub line: Option<u32>,
    /// Entry `w`: the loop dimension on work-item dimension `w` (`coalesce`).
    pub work_dims: Vec<usize>,
    /// Work-group extents per work-item dimension when the kernel needs them (`tile-local`:
    /// the NDRange is then rounded up to whole groups and the extra work items only help
    /// load tiles).
    pub local: Option<Vec<usize>>,
    /// Action variables that must be assigned before the launch (the bounds of a loop
    /// made a dimension, which the CPU evaluates early): the engine declines otherwise,
    /// so the CPU code raises the interpreter's error.
    pub needs_set: Vec<usize>,
    /// The optimisations that fired on this kernel (pass, what it did).
    pub passes: passes::Fired,
    /// `spread-groups`: work items past the domain on work-item dimension 0 return at
    /// once, so a launch may round that dimension up to whole work groups of its choice.
    pub spread: bool,
    /// Its work, for the placement model (`--backend auto`).
    pub work: Arc<super::placement::estimate::Work>,
}

impl Kernel {
    /// Global and local sizes per work-item dimension for a domain of `counts` points per
    /// loop dimension on a device of `units` compute units whose work groups hold at most
    /// `max_group` items.
    pub fn launch_shape(
        &self,
        counts: &[u128],
        units: usize,
        max_group: usize,
    ) -> (Vec<usize>, Option<Vec<usize>>) {
        let mut global: Vec<usize> = self.work_dims.iter().map(|d| counts[*d] as usize).collect();
        if let Some(local) = &self.local {
            for (g, l) in global.iter_mut().zip(local) {
                *g = g.div_ceil(*l) * l;
            }
            return (global, self.local.clone());
        }
        if self.spread {
            if let Some(l) = groups::group_size(&global, units).filter(|l| *l <= max_group) {
                global[0] = global[0].div_ceil(l) * l;
                let mut local = vec![1; global.len()];
                local[0] = l;
                return (global, Some(local));
            }
        }
        (global, None)
    }
}

/// Shared helpers of every kernel program.
pub const PRELUDE: &str = r#"#pragma OPENCL FP_CONTRACT OFF
/* Record an error of iteration `it` at site `site`: the slot keeps the lowest iteration
   (atomic_min on the header's first int); a record is written only while this iteration
   is the lowest seen, so the lowest one's record is always among the ERR_RECORDS. */
static void vr_fail(__global long* err, long it, int site, long index, long bound, long dim,
                    long n0, long n1, long n2, long n3) {
    __global int* head = (__global int*)err;
    int mine = (int)it;
    atomic_min(&head[0], mine);
    if (mine > head[0]) return;
    int k = atomic_inc(&head[1]);
    if (k >= VR_ERR_RECORDS) {
        /* Full: overwrite a record of a higher iteration, if any. */
        for (k = 0; k < VR_ERR_RECORDS; k++) {
            if (err[1 + k * VR_ERR_WORDS] > it) break;
        }
        if (k == VR_ERR_RECORDS) return;
    }
    __global long* r = err + 1 + k * VR_ERR_WORDS;
    r[1] = site; r[2] = index; r[3] = bound; r[4] = dim;
    r[5] = n0; r[6] = n1; r[7] = n2; r[8] = n3;
    r[0] = it;
}
"#;

/// Why a parfor stays on the CPU.
pub type Reject = String;

pub(super) fn c_type(t: ScalarType) -> Result<&'static str, Reject> {
    Ok(match t {
        ScalarType::Bool => "bool",
        ScalarType::I32 => "int",
        ScalarType::I64 => "long",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
        ScalarType::C64 | ScalarType::C128 => return Err("complex numbers".into()),
    })
}

/// Type of an element in memory (bool is one byte).
pub(super) fn mem_type(t: ScalarType) -> Result<&'static str, Reject> {
    if t == ScalarType::Bool {
        Ok("uchar")
    } else {
        c_type(t)
    }
}

pub(super) fn unsigned_of(t: ScalarType) -> &'static str {
    if t == ScalarType::I32 {
        "uint"
    } else {
        "ulong"
    }
}

/// A kernel variable: its C name and what it is.
#[derive(Clone, Debug)]
pub(super) struct KVar {
    pub(super) c: String,
    pub(super) ty: Type,
    /// Index in the action's variables.
    pub(super) var: usize,
}

/// The scalar-code generator: statements and expressions of a parfor body, and the
/// element expressions of library kernels (`gpu/library`), which reuse it so that every
/// kernel applies the same scalar operations with the same checks.
pub(super) struct Gen<'m> {
    m: &'m Module,
    f: &'m Function,
    vars: BTreeMap<String, KVar>,
    order: Vec<(String, Type)>,
    out: String,
    indent: usize,
    tmp: usize,
    sites: Vec<Site>,
    line: Option<u32>,
    fp64: bool,
    int64_atomics: bool,
    writes: BTreeSet<usize>,
    /// Loops entered (where `continue` is C's own).
    loops: usize,
    /// How generated code leaves after recording an error: the kernel returns, a called
    /// function returns 1.
    fail_exit: &'static str,
    /// Module functions called from the body, as OpenCL functions: (prototype,
    /// definition), in the order they were generated.
    functions: Vec<(String, String)>,
    /// Functions being generated (a call back into one is recursion: rejected).
    stack: Vec<String>,
    /// Library kernels: element reads marked `:nocheck` are in range by construction and
    /// every array is assigned (the engine declines otherwise), so neither is checked.
    /// Parfor bodies keep every check, `:nocheck` included (the interpreter's rule),
    /// unless `proven-bounds` is on (`trust_proofs`, `kernel/proven_bounds.rs`): then
    /// their `:nocheck` accesses outside tiled code are not bounds-checked.
    trusted: bool,
    trust_proofs: bool,
    /// Accesses left unchecked by `proven-bounds`.
    proven: usize,
    /// Inside a tiled loop (`tile.rs`): a failing check records the error (the work
    /// item's first) and sets `vr_dead` instead of returning, so every work item reaches
    /// the work group's barriers.
    dead_mode: bool,
    /// Reads served from local-memory tiles: (array, indices, the C read).
    tiles: Vec<(String, Vec<Expr>, String)>,
}

/// Compile `parfor` statement `s` of `f` (which must be a parfor) into kernel `name`,
/// with the passes in force ([`passes::GpuPasses::current`]); where the optimised kernel
/// cannot be made, the plain one (a pass never keeps a parfor off the device).
pub fn compile_parfor(m: &Module, f: &Function, s: &Stmt, name: &str) -> Result<Kernel, Reject> {
    let passes = passes::GpuPasses::current();
    // A serial `for` is a kernel only through `loop-kernels`; the other passes may be
    // dropped when the generator refuses what they produced.
    let plain = match s.kind {
        StmtKind::For { .. } => passes::GpuPasses::none().enabling(passes::LOOP_KERNELS),
        _ => passes::GpuPasses::none(),
    };
    let serial = matches!(s.kind, StmtKind::For { .. });
    match compile_parfor_with(m, f, s, name, &passes) {
        Err(_) if passes != plain && (!serial || passes.is_enabled(passes::LOOP_KERNELS)) => {
            compile_parfor_with(m, f, s, name, &plain)
        }
        other => other,
    }
}

/// A serial `for` of a section (`loop-kernels`, `kernel/loop_kernels.rs`) as a kernel of
/// one work item per iteration, or why not. The caller checks that the scalars the body
/// assigns are dead after the loop ([`loop_kernels::scalars_dead_after`]).
pub fn compile_for(m: &Module, f: &Function, s: &Stmt, name: &str) -> Result<Kernel, Reject> {
    if !matches!(s.kind, StmtKind::For { .. }) {
        return Err("not a for loop".into());
    }
    compile_parfor(m, f, s, name)
}

fn compile_parfor_with(
    m: &Module,
    f: &Function,
    s: &Stmt,
    name: &str,
    passes: &passes::GpuPasses,
) -> Result<Kernel, Reject> {
    // A serial `for` (`loop-kernels`): a parfor of no dimensions around it, which
    // `ndrange-loops`' analysis then makes the kernel's only dimension.
    let serial_body;
    let serial = matches!(s.kind, StmtKind::For { .. });
    let (mut loop_vars, mut ranges, mut body): (Vec<String>, Vec<&Expr>, &Block) = match &s.kind
    {
        StmtKind::Parfor { vars, domain, body } => (vars.clone(), domain_ranges(domain)?, body),
        StmtKind::For { .. } if passes.is_enabled(passes::LOOP_KERNELS) => {
            serial_body = loop_kernels::as_body(s, true)?;
            (Vec::new(), Vec::new(), &serial_body)
        }
        StmtKind::For { .. } => return Err("a serial loop (loop-kernels is off)".into()),
        _ => return Err("not a parfor".into()),
    };
    if ranges.len() != loop_vars.len() {
        return Err("a domain whose rank differs from the loop variables".into());
    }
    // Merge perfectly nested parfors (each body exactly one parfor whose domain does not
    // depend on the outer variables) into one NDRange of up to three dimensions.
    while let [inner] = body.stmts.as_slice() {
        if serial {
            break;
        }
        let StmtKind::Parfor {
            vars: iv,
            domain: id,
            body: ib,
        } = &inner.kind
        else {
            break;
        };
        let Ok(ir) = domain_ranges(id) else { break };
        let mut mentioned = BTreeSet::new();
        for r in &ir {
            names_in_expr(r, &mut mentioned);
        }
        if loop_vars.len() + iv.len() > 3
            || loop_vars.iter().any(|v| mentioned.contains(v))
            || ir.len() != iv.len()
        {
            break;
        }
        loop_vars.extend(iv.iter().cloned());
        ranges.extend(ir);
        body = ib;
    }
    if loop_vars.len() > 3 {
        return Err(format!(
            "a parfor of {} dimensions (at most 3)",
            loop_vars.len()
        ));
    }
    let mut fired: passes::Fired = Vec::new();
    // The parfor's own dimensions: the engine sets their variables to the last point.
    let parfor_dims = loop_vars.len();
    let promoted = if serial {
        Some(ndrange::promote(m, f, &loop_vars, body)?)
    } else if passes.is_enabled(passes::NDRANGE_LOOPS) {
        ndrange::promote(m, f, &loop_vars, body).ok()
    } else {
        None
    };
    if let Some(p) = &promoted {
        fired.push(if serial {
            (
                passes::LOOP_KERNELS,
                format!(
                    "loop over `{}` made a kernel (one work item per iteration)",
                    // R's `for (i in 1:n)`: the user's `i`, a copy of the front end's `_iN`
                    p.copies
                        .iter()
                        .find(|(_, v)| *v == p.var)
                        .map_or(&p.var, |(c, _)| c)
                ),
            )
        } else {
            (
                passes::NDRANGE_LOOPS,
                format!(
                    "loop over `{}` made NDRange dimension {}",
                    p.var,
                    loop_vars.len()
                ),
            )
        });
        loop_vars.push(p.var.clone());
        ranges.push(&p.range);
        body = &p.body;
    }
    let copies = promoted.as_ref().map_or(&[][..], |p| &p.copies[..]);
    let work_dims = if passes.is_enabled(passes::COALESCE) {
        let order = ndrange::coalesced_order(f, &loop_vars, &body.stmts, copies);
        if order[0] != 0 {
            fired.push((
                passes::COALESCE,
                format!("`{}` on work-item dimension 0", loop_vars[order[0]]),
            ));
        }
        order
    } else {
        (0..loop_vars.len()).collect()
    };
    let mut values = Vec::new();
    for r in &ranges {
        let Expr::Range {
            start: Some(a),
            stop: Some(b),
            step,
        } = r
        else {
            return Err("a loop range without both endpoints".into());
        };
        for e in [Some(a.as_ref()), Some(b.as_ref()), step.as_deref()] {
            match e {
                Some(e) => {
                    check_domain_expr(e)?;
                    values.push(e.clone());
                }
                None => values.push(Expr::i64(1)),
            }
        }
    }
    let mut g = Gen {
        m,
        f,
        vars: BTreeMap::new(),
        order: Vec::new(),
        out: String::new(),
        indent: 1,
        tmp: 0,
        sites: Vec::new(),
        line: s.line,
        fp64: false,
        int64_atomics: false,
        writes: BTreeSet::new(),
        loops: 0,
        fail_exit: "return;",
        functions: Vec::new(),
        stack: vec![f.name.clone()],
        trusted: false,
        trust_proofs: passes.is_enabled(passes::PROVEN_BOUNDS),
        proven: 0,
        dead_mode: false,
        tiles: Vec::new(),
    };
    // Every variable the domain or body mentions, in a fixed order.
    let mut names = BTreeSet::new();
    for r in &ranges {
        names_in_expr(r, &mut names);
    }
    names.extend(loop_vars.iter().cloned());
    names_in_stmts(&body.stmts, &mut names);
    let assigned = assigned_vars(&body.stmts);
    for n in &names {
        let ty = f
            .var_type(n)
            .ok_or_else(|| format!("unknown variable `{n}`"))?
            .clone();
        match &ty {
            Type::Scalar { elem } => {
                c_type(*elem)?;
            }
            Type::Array(a) => {
                c_type(a.elem)?;
                if assigned.contains(n) {
                    return Err(format!("assignment to array variable `{n}` in the body"));
                }
            }
            other => return Err(format!("variable `{n}` of type {other}")),
        }
        let k = g.order.len();
        let c = format!("v{k}_{}", sanitize(n));
        g.order.push((n.clone(), ty.clone()));
        g.vars.insert(n.clone(), KVar { c, ty, var: k });
    }
    let mut params = Vec::new();
    let mut sig = vec!["__global long* vr_err".to_string()];
    for k in 0..ranges.len() {
        params.push(Param::Range(k));
        sig.push(format!("long vr_s{k}, long vr_st{k}, long vr_n{k}"));
    }
    let mut prologue = String::new();
    for (name, ty) in g.order.clone() {
        let kv = g.vars[&name].clone();
        match ty {
            Type::Scalar { elem } => {
                params.push(Param::Scalar { var: kv.var, elem });
                let arg_t = if elem == ScalarType::Bool {
                    "uchar"
                } else {
                    c_type(elem)?
                };
                sig.push(format!("{arg_t} {c}_in, int {c}_in_set", c = kv.c));
                let _ = writeln!(
                    prologue,
                    "    {t} {c} = ({t}){c}_in; int {c}_set = {c}_in_set;",
                    t = c_type(elem)?,
                    c = kv.c
                );
            }
            Type::Array(a) => {
                let n = a.ndims as usize;
                params.push(Param::Array {
                    var: kv.var,
                    ndims: n,
                    elem: a.elem,
                });
                let mut s = format!(
                    "__global {}* {c}_p, long {c}_off",
                    mem_type(a.elem)?,
                    c = kv.c
                );
                for d in 0..n {
                    let _ = write!(s, ", long {c}_d{d}", c = kv.c);
                }
                for d in 0..n {
                    let _ = write!(s, ", long {c}_s{d}", c = kv.c);
                }
                let _ = write!(s, ", int {c}_set", c = kv.c);
                sig.push(s);
                if a.elem == ScalarType::F64 {
                    g.fp64 = true;
                }
            }
            _ => unreachable!("checked above"),
        }
        if ty == Type::scalar(ScalarType::F64) {
            g.fp64 = true;
        }
    }
    // The work item's point and its number in the serial order (first variable slowest).
    let d = ranges.len();
    let _ = writeln!(prologue, "    long vr_it = 0;");
    for k in 0..d {
        let w = work_dims.iter().position(|x| *x == k).unwrap_or(k);
        let _ = writeln!(prologue, "    long vr_i{k} = (long)get_global_id({w});");
        let _ = writeln!(prologue, "    vr_it = vr_it * vr_n{k} + vr_i{k};");
    }
    for (k, v) in loop_vars.iter().enumerate() {
        let kv = g.vars[v].clone();
        let Type::Scalar { elem } = kv.ty else {
            return Err(format!("loop variable `{v}` is not a scalar"));
        };
        if !elem.is_int() {
            return Err(format!("loop variable `{v}` is not an integer"));
        }
        let _ = writeln!(
            prologue,
            "    {c} = ({t})(vr_s{k} + vr_i{k} * vr_st{k}); {c}_set = 1;",
            c = kv.c,
            t = c_type(elem)?
        );
    }
    // Tiling needs whole work groups: the work items padding the NDRange are dead from
    // the start (they only help load tiles).
    let tiled = if passes.is_enabled(passes::TILE_LOCAL) {
        tile::plan(m, f, &loop_vars, &body.stmts).ok()
    } else {
        None
    };
    if tiled.is_some() {
        let live: Vec<String> = (0..d).map(|k| format!("vr_i{k} < vr_n{k}")).collect();
        let _ = writeln!(prologue, "    int vr_dead = !({});", live.join(" && "));
    }
    // `spread-groups` (`kernel/groups.rs`): a launch may pad work-item dimension 0.
    let spread = tiled.is_none() && d > 0 && passes.is_enabled(passes::SPREAD_GROUPS);
    if spread {
        let k0 = work_dims[0];
        let _ = writeln!(prologue, "    if (vr_i{k0} >= vr_n{k0}) return;");
        fired.push((
            passes::SPREAD_GROUPS,
            "work groups sized at launch to reach every compute unit".to_string(),
        ));
    }
    let mut needs_set = Vec::new();
    if let Some(p) = &promoted {
        for n in &p.needs_set {
            needs_set.push(g.var(n)?.var);
        }
        // Written arrays sharing a buffer with another array of the body: the work items
        // of the promoted loop's first point run it serially (its CPU order), the
        // others stop.
        let mut alias = Vec::new();
        for (w, x) in &p.alias_pairs {
            let (w, x) = (g.var(w)?.c, g.var(x)?.c);
            alias.push(format!(
                "(__global const uchar*){w}_p == (__global const uchar*){x}_p"
            ));
        }
        if !alias.is_empty() {
            g.line(&format!("if ({}) {{", alias.join(" || ")));
            g.indent += 1;
            if tiled.is_some() {
                g.line("if (vr_dead) return;");
            }
            g.line(&format!("if (vr_i{} != 0) return;", d - 1));
            g.block(p.original)?;
            g.line("return;");
            g.indent -= 1;
            g.line("}");
        }
    }
    let mut local = None;
    match &tiled {
        Some(plan) => {
            fired.push((passes::TILE_LOCAL, plan.describe()));
            g.tiled(plan, &work_dims)?;
            local = Some(vec![tile::TILE; d]);
        }
        None => g.block(&body.stmts)?,
    }
    if g.proven > 0 {
        fired.push((
            passes::PROVEN_BOUNDS,
            format!("{} access(es) proved in bounds left unchecked", g.proven),
        ));
    }
    passes::count(&fired);
    // A serial loop's variable holds its last point afterwards too.
    let kept_dims = if serial { loop_vars.len() } else { parfor_dims };
    let loop_var_ids = loop_vars[..kept_dims]
        .iter()
        .map(|v| g.vars[v].var)
        .collect();
    let mut src = String::new();
    if g.fp64 {
        src.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    if g.int64_atomics {
        src.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
    }
    let _ = writeln!(
        src,
        "#define VR_ERR_RECORDS {ERR_RECORDS}\n#define VR_ERR_WORDS {ERR_WORDS}"
    );
    src.push_str(PRELUDE);
    for (proto, _) in &g.functions {
        let _ = writeln!(src, "{proto};");
    }
    for (_, def) in &g.functions {
        src.push_str(def);
    }
    let _ = writeln!(src, "__kernel void {name}({}) {{", sig.join(",\n    "));
    src.push_str(&prologue);
    src.push_str(&g.out);
    src.push_str("}\n");
    Ok(Kernel {
        name: name.to_string(),
        source: src,
        dims: d,
        loop_vars: loop_var_ids,
        params,
        sites: g.sites,
        fp64: g.fp64,
        int64_atomics: g.int64_atomics,
        writes: g.writes,
        vars: g.order,
        values,
        line: s.line,
        work_dims,
        local,
        needs_set,
        passes: fired,
        spread,
        work: Arc::new(super::placement::estimate::Work::of(m, f, s)),
    })
}

/// The ranges of a loop domain (a `range` or a `domain` of literal ranges).
fn domain_ranges(domain: &Expr) -> Result<Vec<&Expr>, Reject> {
    match domain {
        Expr::Domain { ranges } => Ok(ranges.iter().collect()),
        r @ Expr::Range { .. } => Ok(vec![r]),
        _ => Err("a loop over a domain that is not a literal range or domain".into()),
    }
}

/// Domain endpoints are evaluated by the CPU before the kernel starts: only expressions
/// that cannot fail or change anything (so evaluating them early changes nothing).
pub(super) fn check_domain_expr(e: &Expr) -> Result<(), Reject> {
    match e {
        Expr::Const { .. } | Expr::Var { .. } => Ok(()),
        Expr::Unary { op: UnOp::Neg, arg } => check_domain_expr(arg),
        Expr::Binary {
            op: BinOp::Add | BinOp::Sub | BinOp::Mul,
            lhs,
            rhs,
        } => {
            check_domain_expr(lhs)?;
            check_domain_expr(rhs)
        }
        Expr::Dim { arg, .. } => check_domain_expr(arg),
        Expr::Lib {
            func: LibFn::Len,
            args,
        } => args.iter().try_for_each(check_domain_expr),
        Expr::Cast {
            to:
                Type::Scalar {
                    elem: ScalarType::I32 | ScalarType::I64,
                },
            arg,
        } => match arg.as_ref() {
            Expr::Var { .. } | Expr::Const { .. } => Ok(()),
            // R's `1:n` direction, `(cast i64 (<= 1 n))`: a comparison cannot fail.
            Expr::Binary { op, lhs, rhs } if op.is_comparison() => {
                check_domain_expr(lhs)?;
                check_domain_expr(rhs)
            }
            _ => Err("a loop bound with a cast of an expression".into()),
        },
        _ => Err("a loop bound that may fail (evaluated before the kernel)".into()),
    }
}

fn sanitize(n: &str) -> String {
    n.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn names_in_expr(e: &Expr, out: &mut BTreeSet<String>) {
    crate::analysis::walk_expr(e, &mut |x| match x {
        Expr::Var { name } => {
            out.insert(name.clone());
        }
        Expr::AtomicAdd { array, .. } | Expr::AtomicCas { array, .. } => {
            out.insert(array.clone());
        }
        _ => {}
    });
}

fn names_in_stmts(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        for e in crate::analysis::stmt_exprs(s) {
            names_in_expr(e, out);
        }
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    match t {
                        LValue::Var { name } => out.insert(name.clone()),
                        LValue::Index { array, .. } => out.insert(array.clone()),
                    };
                }
            }
            StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
                out.extend(vars.iter().cloned())
            }
            StmtKind::Alloc { var, .. } | StmtKind::Free { var } => {
                out.insert(var.clone());
            }
            _ => {}
        }
        for b in crate::analysis::child_blocks(s) {
            names_in_stmts(&b.stmts, out);
        }
    }
}

fn assigned_vars(stmts: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in crate::analysis::preorder(stmts) {
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    if let LValue::Var { name } = t {
                        out.insert(name.clone());
                    }
                }
            }
            StmtKind::For { vars, .. } | StmtKind::Parfor { vars, .. } => {
                out.extend(vars.iter().cloned())
            }
            StmtKind::Alloc { var, .. } | StmtKind::Free { var } => {
                out.insert(var.clone());
            }
            _ => {}
        }
    }
    out
}

/// A C literal for a constant.
pub(super) fn literal(l: &Literal) -> Result<(String, ScalarType), Reject> {
    fn float(x: f64, suffix: &str) -> String {
        if x.is_nan() {
            format!("(({})NAN)", if suffix == "f" { "float" } else { "double" })
        } else if x.is_infinite() {
            format!(
                "(({})({}INFINITY))",
                if suffix == "f" { "float" } else { "double" },
                if x < 0.0 { "-" } else { "" }
            )
        } else {
            // `{:e}` prints the shortest digits that read back exactly.
            format!("{x:e}{suffix}")
        }
    }
    Ok(match *l {
        Literal::Bool(b) => (if b { "true" } else { "false" }.into(), ScalarType::Bool),
        Literal::I32(v) => (
            if v == i32::MIN {
                "(-2147483647 - 1)".into()
            } else {
                format!("({v})")
            },
            ScalarType::I32,
        ),
        Literal::I64(v) => (
            if v == i64::MIN {
                "(-9223372036854775807L - 1L)".into()
            } else {
                format!("({v}L)")
            },
            ScalarType::I64,
        ),
        Literal::F32(v) => (float(v as f64, "f"), ScalarType::F32),
        Literal::F64(v) => (float(v, ""), ScalarType::F64),
        Literal::C64(_) | Literal::C128(_) => return Err("complex numbers".into()),
    })
}

impl<'m> Gen<'m> {
    /// A generator for a library kernel's element code (`gpu/library`): trusted element
    /// reads, errors ending the work item, variables declared by the caller.
    pub(super) fn library(m: &'m Module, f: &'m Function, line: Option<u32>) -> Gen<'m> {
        Gen {
            m,
            f,
            vars: BTreeMap::new(),
            order: Vec::new(),
            out: String::new(),
            indent: 1,
            tmp: 0,
            sites: Vec::new(),
            line,
            fp64: false,
            int64_atomics: false,
            writes: BTreeSet::new(),
            loops: 0,
            fail_exit: "return;",
            functions: Vec::new(),
            stack: vec![f.name.clone()],
            trusted: true,
            trust_proofs: false,
            proven: 0,
            dead_mode: false,
            tiles: Vec::new(),
        }
    }

    /// Declare variable `name` as the C name `c` (its `_set` flag, and for arrays its
    /// `_p`, `_off`, `_d*`, `_s*` parameters, come from the caller's signature).
    pub(super) fn declare(&mut self, name: &str, c: &str, ty: Type, var: usize) {
        if matches!(
            ty,
            Type::Scalar {
                elem: ScalarType::F64
            }
        ) || matches!(&ty, Type::Array(a) if a.elem == ScalarType::F64)
        {
            self.fp64 = true;
        }
        self.order.push((name.to_string(), ty.clone()));
        self.vars.insert(
            name.to_string(),
            KVar {
                c: c.to_string(),
                ty,
                var,
            },
        );
    }

    /// The element code generated so far, and what it needs: (statements, sites, fp64).
    pub(super) fn finish(self) -> (String, Vec<Site>, bool) {
        (self.out, self.sites, self.fp64)
    }

    /// A scalar expression's statements (appended) and its C value.
    pub(super) fn value(&mut self, e: &Expr) -> Result<String, Reject> {
        self.expr(e)
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn temp(&mut self, t: ScalarType, value: &str) -> Result<String, Reject> {
        self.tmp += 1;
        let name = format!("t{}", self.tmp);
        let decl = format!("{} {name} = {value};", c_type(t)?);
        self.line(&decl);
        Ok(name)
    }

    fn site(&mut self, kind: SiteKind, variable: Option<&str>, note: String) -> usize {
        self.sites.push(Site {
            kind,
            function: self.f.name.clone(),
            line: self.line,
            variable: variable.map(str::to_string),
            note,
        });
        self.sites.len() - 1
    }

    /// `if (!(ok)) { record; stop the work item }`.
    fn check(
        &mut self,
        ok: &str,
        site: usize,
        index: &str,
        bound: &str,
        dim: &str,
        notes: &[String],
    ) {
        let mut n: Vec<String> = notes.iter().take(NOTE_INDICES).cloned().collect();
        while n.len() < NOTE_INDICES {
            n.push("0".into());
        }
        let text = if self.dead_mode {
            format!(
                "if (!({ok})) {{ if (!vr_dead) vr_fail(vr_err, vr_it, {site}, (long)({index}), (long)({bound}), (long)({dim}), {}); vr_dead = 1; }}",
                n.join(", ")
            )
        } else {
            format!(
                "if (!({ok})) {{ vr_fail(vr_err, vr_it, {site}, (long)({index}), (long)({bound}), (long)({dim}), {}); {} }}",
                n.join(", "),
                self.fail_exit
            )
        };
        self.line(&text);
    }

    fn type_of(&self, e: &Expr) -> Result<Type, Reject> {
        crate::vrir::verify::expr_type(self.m, self.f, e).map_err(|e| e.message)
    }

    fn scalar_type_of(&self, e: &Expr) -> Result<ScalarType, Reject> {
        match self.type_of(e)? {
            Type::Scalar { elem } => {
                c_type(elem)?;
                if elem == ScalarType::F64 {
                    // Recorded in `expr` (needs &mut).
                }
                Ok(elem)
            }
            other => Err(format!("an expression of type {other} in the body")),
        }
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<(), Reject> {
        for s in stmts {
            let saved = self.line;
            if s.line.is_some() {
                self.line = s.line;
            }
            self.stmt(s)?;
            self.line = saved;
        }
        Ok(())
    }

    fn var(&self, name: &str) -> Result<KVar, Reject> {
        self.vars
            .get(name)
            .cloned()
            .ok_or_else(|| format!("variable `{name}`"))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), Reject> {
        match &s.kind {
            StmtKind::Block(b) => {
                self.line("{");
                self.indent += 1;
                self.block(&b.stmts)?;
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Assign { targets, value } => match targets.as_slice() {
                [LValue::Var { name }] => {
                    let kv = self.var(name)?;
                    let Type::Scalar { elem } = kv.ty else {
                        return Err(format!("assignment to array variable `{name}`"));
                    };
                    let v = self.expr(value)?;
                    let text = format!("{c} = {v}; {c}_set = 1;", c = kv.c);
                    let _ = elem;
                    self.line(&text);
                }
                [LValue::Index {
                    array,
                    indices,
                    flags,
                }] => {
                    let (t, vt) = (self.scalar_type_of(value)?, self.elem_of(array)?);
                    if t != vt {
                        return Err(format!("a store of {t} into an array of {vt}"));
                    }
                    let v = self.expr(value)?;
                    let at = self.element(array, indices, *flags)?;
                    let kv = self.var(array)?;
                    self.writes.insert(kv.var);
                    let stored = if vt == ScalarType::Bool {
                        format!("(uchar)({v} ? 1 : 0)")
                    } else {
                        v
                    };
                    self.line(&format!("{at} = {stored};"));
                }
                _ => return Err("a multiple assignment".into()),
            },
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond)?;
                let c = self.temp(ScalarType::Bool, &c)?;
                self.line(&format!("if ({c}) {{"));
                self.indent += 1;
                self.block(&then.stmts)?;
                self.indent -= 1;
                if let Some(e) = els {
                    self.line("} else {");
                    self.indent += 1;
                    self.block(&e.stmts)?;
                    self.indent -= 1;
                }
                self.line("}");
            }
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                // Inside a kernel an inner parfor runs serially: one of its allowed orders.
                let ranges = domain_ranges(domain)?;
                if ranges.len() != vars.len() {
                    return Err("a domain whose rank differs from the loop variables".into());
                }
                self.line("{");
                self.indent += 1;
                // The domain is evaluated once, range by range, before the first iteration.
                let mut parts = Vec::new();
                for r in &ranges {
                    let Expr::Range {
                        start: Some(a),
                        stop: Some(b),
                        step,
                    } = r
                    else {
                        return Err("a loop range without both endpoints".into());
                    };
                    let a = self.int64(a)?;
                    let b = self.int64(b)?;
                    let st = match step {
                        Some(st) => self.int64(st)?,
                        None => "1L".to_string(),
                    };
                    let site = self.site(SiteKind::ZeroStep, None, String::new());
                    self.check(&format!("{st} != 0"), site, "0", "0", "-1", &[]);
                    parts.push((a, b, st));
                }
                let mut opened = 0;
                for (k, (v, (a, b, st))) in vars.iter().zip(parts).enumerate() {
                    let kv = self.var(v)?;
                    let Type::Scalar { elem } = kv.ty else {
                        return Err(format!("loop variable `{v}` is not a scalar"));
                    };
                    self.tmp += 1;
                    let (last, kk) = (format!("vr_last{}", self.tmp), format!("vr_k{}", self.tmp));
                    let _ = k;
                    self.line(&format!("if ({st} > 0 ? {b} >= {a} : {a} >= {b}) {{"));
                    self.indent += 1;
                    self.line(&format!(
                        "ulong {last} = ({st} > 0 ? (ulong)({b}) - (ulong)({a}) : (ulong)({a}) - (ulong)({b})) / ({st} > 0 ? (ulong)({st}) : (ulong)0 - (ulong)({st}));"
                    ));
                    self.line(&format!("for (ulong {kk} = 0; {kk} <= {last}; {kk}++) {{"));
                    self.indent += 1;
                    self.line(&format!(
                        "{c} = ({t})(long)((ulong)({a}) + {kk} * (ulong)({st})); {c}_set = 1;",
                        c = kv.c,
                        t = c_type(elem)?
                    ));
                    opened += 1;
                }
                self.loops += 1;
                self.block(&body.stmts)?;
                self.loops -= 1;
                for _ in 0..opened {
                    self.indent -= 1;
                    self.line("}");
                    self.indent -= 1;
                    self.line("}");
                }
                self.indent -= 1;
                self.line("}");
                if vars.len() > 1 {
                    // `break`/`continue` of a multi-dimensional loop act on the whole
                    // loop in VRIR, on the innermost C loop here.
                    if contains_break_or_continue(&body.stmts) {
                        return Err("break or continue in a loop over a domain".into());
                    }
                }
            }
            StmtKind::While { cond, body } => {
                self.line("while (1) {");
                self.indent += 1;
                let c = self.expr(cond)?;
                let c = self.temp(ScalarType::Bool, &c)?;
                self.line(&format!("if (!{c}) break;"));
                self.loops += 1;
                self.block(&body.stmts)?;
                self.loops -= 1;
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Break => self.line("break;"),
            // At the parfor's own level, `continue` ends the work item.
            StmtKind::Continue => self.line(if self.loops == 0 {
                "return;"
            } else {
                "continue;"
            }),
            StmtKind::Expr { expr } => {
                self.expr_any(expr)?;
            }
            StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => {}
            StmtKind::Return { values } => {
                if self.fail_exit == "return;" {
                    return Err("return in a parfor body".into());
                }
                match values.as_slice() {
                    [] => self.line("return 0;"),
                    [v] => {
                        let v = self.expr(v)?;
                        self.line(&format!("*vr_out = {v}; return 0;"));
                    }
                    _ => return Err("a function of several results".into()),
                }
            }
            StmtKind::Alloc { .. } | StmtKind::Free { .. } => {
                return Err("allocation in the body".into())
            }
        }
        Ok(())
    }

    fn elem_of(&self, array: &str) -> Result<ScalarType, Reject> {
        match self.var(array)?.ty {
            Type::Array(a) => Ok(a.elem),
            other => Err(format!("indexing `{array}` of type {other}")),
        }
    }

    /// An expression statement: atomics, calls, anything else whose value is dropped.
    fn expr_any(&mut self, e: &Expr) -> Result<(), Reject> {
        if let Expr::Call { func, args } = e {
            if matches!(self.type_of(e)?, Type::Void) {
                return self.call(func, args, None).map(|_| ());
            }
        }
        self.expr(e).map(|_| ())
    }

    /// A call of module function `func` (scalar parameters, one scalar result or none):
    /// compiled once as an OpenCL function returning a status; its value in a temporary.
    fn call(
        &mut self,
        func: &str,
        args: &[Expr],
        result: Option<ScalarType>,
    ) -> Result<String, Reject> {
        let callee = self
            .m
            .function(func)
            .ok_or_else(|| format!("a call of unknown function `{func}`"))?;
        if self.stack.iter().any(|n| n == func) {
            return Err(format!("a recursive call of `{func}`"));
        }
        let cname = format!("vrf_{}", sanitize(func));
        if !self
            .functions
            .iter()
            .any(|(p, _)| p.contains(&format!(" {cname}(")))
        {
            self.define_function(callee, &cname)?;
        }
        let mut vals = Vec::new();
        for (a, p) in args.iter().zip(&callee.params) {
            let Type::Scalar { elem } = p.ty else {
                return Err(format!("a call of `{func}` with an array argument"));
            };
            let v = self.expr(a)?;
            vals.push(format!("({})({v})", c_type(elem)?));
        }
        let out = match result {
            Some(t) => {
                let r = self.temp(t, &format!("({})0", c_type(t)?))?;
                vals.push(format!("&{r}"));
                r
            }
            None => {
                vals.push("0".into());
                String::new()
            }
        };
        let text = format!(
            "if ({cname}(vr_err, vr_it{}{})) {}",
            if vals.is_empty() { "" } else { ", " },
            vals.join(", "),
            self.fail_exit
        );
        self.line(&text);
        Ok(out)
    }

    /// `int NAME(__global long* vr_err, long vr_it, params..., T* vr_out)`: 0 when it
    /// returned, 1 after recording an error.
    fn define_function(&mut self, callee: &'m Function, cname: &str) -> Result<(), Reject> {
        let result = match callee.results.as_slice() {
            [] => None,
            [Type::Scalar { elem }] => Some(*elem),
            _ => {
                return Err(format!(
                    "a call of `{}` (array or several results)",
                    callee.name
                ))
            }
        };
        let mut sig = vec![
            "__global long* vr_err".to_string(),
            "long vr_it".to_string(),
        ];
        let mut g = Gen {
            m: self.m,
            f: callee,
            vars: BTreeMap::new(),
            order: Vec::new(),
            out: String::new(),
            indent: 1,
            tmp: 0,
            sites: std::mem::take(&mut self.sites),
            line: callee.line,
            fp64: self.fp64,
            int64_atomics: self.int64_atomics,
            writes: BTreeSet::new(),
            loops: 0,
            fail_exit: "return 1;",
            functions: std::mem::take(&mut self.functions),
            stack: self.stack.clone(),
            trusted: false,
            trust_proofs: false,
            proven: 0,
            dead_mode: false,
            tiles: Vec::new(),
        };
        g.stack.push(callee.name.clone());
        let r = (|| -> Result<(), Reject> {
            let mut decls = String::new();
            for (k, p) in callee.params.iter().enumerate() {
                let Type::Scalar { elem } = p.ty else {
                    return Err(format!(
                        "a call of `{}` with an array parameter",
                        callee.name
                    ));
                };
                let c = format!("p{k}_{}", sanitize(&p.name));
                sig.push(format!("{} {c}", c_type(elem)?));
                let _ = writeln!(decls, "    int {c}_set = 1;");
                g.vars.insert(
                    p.name.clone(),
                    KVar {
                        c,
                        ty: p.ty.clone(),
                        var: usize::MAX,
                    },
                );
            }
            for (k, l) in callee.locals.iter().enumerate() {
                let Type::Scalar { elem } = l.ty else {
                    return Err(format!("`{}` has an array local", callee.name));
                };
                let c = format!("l{k}_{}", sanitize(&l.name));
                let _ = writeln!(decls, "    {} {c} = 0; int {c}_set = 0;", c_type(elem)?);
                g.vars.insert(
                    l.name.clone(),
                    KVar {
                        c,
                        ty: l.ty.clone(),
                        var: usize::MAX,
                    },
                );
            }
            sig.push(match result {
                Some(t) => format!("{}* vr_out", c_type(t)?),
                None => "void* vr_out".to_string(),
            });
            g.out.push_str(&decls);
            g.block(&callee.body)?;
            Ok(())
        })();
        self.sites = std::mem::take(&mut g.sites);
        self.functions = std::mem::take(&mut g.functions);
        r?;
        self.fp64 |= g.fp64;
        self.int64_atomics |= g.int64_atomics;
        // Falling off the end of a function with a result is `missing return`.
        let tail = match result {
            None => "    return 0;\n".to_string(),
            Some(_) => {
                let site = {
                    self.sites.push(Site {
                        kind: SiteKind::MissingReturn,
                        function: callee.name.clone(),
                        line: None,
                        variable: None,
                        note: String::new(),
                    });
                    self.sites.len() - 1
                };
                format!("    vr_fail(vr_err, vr_it, {site}, 0L, 0L, -1L, 0, 0, 0, 0); return 1;\n")
            }
        };
        let proto = format!("static int {cname}({})", sig.join(", "));
        let def = format!("{proto} {{\n{}{tail}}}\n", g.out);
        self.functions.push((proto, def));
        Ok(())
    }

    /// An integer expression as a C `long`.
    fn int64(&mut self, e: &Expr) -> Result<String, Reject> {
        let t = self.scalar_type_of(e)?;
        let v = self.expr(e)?;
        match t {
            ScalarType::I32 | ScalarType::I64 => Ok(format!("((long)({v}))")),
            other => Err(format!("an index or bound of type {other}")),
        }
    }

    /// `(index A i...)` with scalar indices: the element's lvalue, checked.
    fn element(
        &mut self,
        array: &str,
        indices: &[Expr],
        flags: IndexFlags,
    ) -> Result<String, Reject> {
        let kv = self.var(array)?;
        let Type::Array(at) = kv.ty else {
            return Err(format!("indexing `{array}` of type {}", kv.ty));
        };
        let n = at.ndims as usize;
        let d = indices.len();
        if d == 0 || d > n || (d < n && !flags.flatten) {
            return Err(format!("a slice of `{array}`"));
        }
        let proven = proven_bounds::skips_check(flags, self.trust_proofs, self.dead_mode);
        let trusted = (self.trusted || proven) && !flags.check;
        self.proven += (proven && !self.trusted) as usize;
        if !self.trusted {
            self.check_assigned_array(&kv, array);
        }
        let mut written = Vec::new();
        for ix in indices {
            match self.type_of(ix)? {
                Type::Scalar {
                    elem: ScalarType::I32 | ScalarType::I64,
                } => {}
                _ => return Err(format!("a slice, gather or mask index of `{array}`")),
            }
            let v = self.int64(ix)?;
            written.push(self.temp(ScalarType::I64, &v)?);
        }
        let base = self.m.index_base as i64;
        let shape = vec!["S"; d].join(",");
        let mut offset = format!("{}_off", kv.c);
        for (k, i) in written.iter().enumerate() {
            let flat_tail = k == d - 1 && d < n;
            let extent = if flat_tail {
                (k..n)
                    .map(|j| format!("{}_d{j}", kv.c))
                    .collect::<Vec<_>>()
                    .join(" * ")
            } else {
                format!("{}_d{k}", kv.c)
            };
            let mut p = format!("({i} - {base}L)");
            if flags.negative {
                p = format!("({i} < 0 ? {i} + ({extent}) : {p})");
            }
            let p = self.temp(ScalarType::I64, &p)?;
            if !trusted {
                let site = self.site(SiteKind::OutOfBounds, Some(array), shape.clone());
                self.check(
                    &format!("(ulong){p} < (ulong)({extent})"),
                    site,
                    i,
                    &extent,
                    &k.to_string(),
                    &written,
                );
            }
            if flat_tail {
                let order: Vec<usize> = if at.layout == Layout::Col {
                    (k..n).collect()
                } else {
                    (k..n).rev().collect()
                };
                let mut rest = p.clone();
                for (j, dk) in order.iter().enumerate() {
                    let pk = if j + 1 == order.len() {
                        rest.clone()
                    } else {
                        let r = self.temp(ScalarType::I64, &format!("{rest} % {}_d{dk}", kv.c))?;
                        rest = self.temp(ScalarType::I64, &format!("{rest} / {}_d{dk}", kv.c))?;
                        r
                    };
                    offset = format!("{offset} + {pk} * {}_s{dk}", kv.c);
                }
            } else {
                offset = format!("{offset} + {p} * {}_s{k}", kv.c);
            }
        }
        Ok(format!("{}_p[{offset}]", kv.c))
    }

    fn check_assigned_array(&mut self, kv: &KVar, name: &str) {
        let site = self.site(SiteKind::Unassigned, Some(name), String::new());
        self.check(&format!("{}_set", kv.c), site, "0", "0", "-1", &[]);
    }

    /// A scalar expression: statements computing it, and the C expression of its value.
    fn expr(&mut self, e: &Expr) -> Result<String, Reject> {
        let t = self.scalar_type_of(e)?;
        if t == ScalarType::F64 {
            self.fp64 = true;
        }
        Ok(match e {
            Expr::Const { value } => literal(value)?.0,
            Expr::Var { name } => {
                let kv = self.var(name)?;
                if !self.trusted {
                    let site = self.site(SiteKind::Unassigned, Some(name), String::new());
                    self.check(&format!("{}_set", kv.c), site, "0", "0", "-1", &[]);
                }
                kv.c.clone()
            }
            Expr::Unary { op, arg } => {
                let a = self.expr(arg)?;
                match (op, t) {
                    (UnOp::Not, _) => format!("(!{a})"),
                    (UnOp::Neg, ScalarType::I32 | ScalarType::I64) => {
                        format!("(({})(0 - ({})({a})))", c_type(t)?, unsigned_of(t))
                    }
                    (UnOp::Neg, _) => format!("(-{a})"),
                }
            }
            Expr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs)?,
            Expr::Cast { to, arg } => {
                let Type::Scalar { elem: to } = to else {
                    return Err("an element-wise cast of an array".into());
                };
                let from = self.scalar_type_of(arg)?;
                let a = self.expr(arg)?;
                self.cast(&a, from, *to)?
            }
            Expr::Lib { func, args } => self.lib(*func, args, t)?,
            Expr::Dim { arg, axis } => {
                let Expr::Var { name } = arg.as_ref() else {
                    return Err("dim of an array expression".into());
                };
                let kv = self.var(name)?;
                format!("({}_d{axis})", kv.c)
            }
            Expr::Index {
                array,
                indices,
                flags,
            } => {
                let Expr::Var { name } = array.as_ref() else {
                    return Err("indexing an array expression".into());
                };
                let at = self.element(name, indices, *flags)?;
                // A tiled read: the checks above are the original's, the value comes
                // from local memory.
                let at = match self
                    .tiles
                    .iter()
                    .find(|(a, ix, _)| a == name && ix == indices)
                {
                    Some((_, _, tile)) => tile.clone(),
                    None => at,
                };
                if t == ScalarType::Bool {
                    format!("({at} != 0)")
                } else {
                    self.temp(t, &at)?
                }
            }
            Expr::AtomicAdd {
                array,
                indices,
                value,
            } => {
                let v = self.expr(value)?;
                let at = self.element(array, indices, IndexFlags::default())?;
                let kv = self.var(array)?;
                self.writes.insert(kv.var);
                let ptr = format!("&{at}");
                match t {
                    ScalarType::I32 => self.temp(t, &format!("atomic_add({ptr}, {v})"))?,
                    ScalarType::I64 => {
                        self.int64_atomics = true;
                        self.temp(t, &format!("atom_add({ptr}, {v})"))?
                    }
                    ScalarType::F32 | ScalarType::F64 => self.float_atomic_add(&ptr, &v, t)?,
                    _ => return Err(format!("atomic-add on {t}")),
                }
            }
            Expr::AtomicCas {
                array,
                indices,
                expected,
                new,
            } => {
                let ex = self.expr(expected)?;
                let nw = self.expr(new)?;
                let at = self.element(array, indices, IndexFlags::default())?;
                let kv = self.var(array)?;
                self.writes.insert(kv.var);
                match t {
                    ScalarType::I32 => {
                        self.temp(t, &format!("atomic_cmpxchg(&{at}, {ex}, {nw})"))?
                    }
                    ScalarType::I64 => {
                        self.int64_atomics = true;
                        self.temp(t, &format!("atom_cmpxchg(&{at}, {ex}, {nw})"))?
                    }
                    _ => return Err(format!("atomic-cas on {t}")),
                }
            }
            Expr::Call { func, args } => self.call(func, args, Some(t))?,
            Expr::Map { .. } => return Err("map in the body".into()),
            Expr::Reduce { .. } => return Err("a reduction in the body".into()),
            Expr::Scan { .. } => {
                return Err("a scan (cumulative sum or product) in the body".into())
            }
            Expr::Alloc { .. } => return Err("allocation in the body".into()),
            Expr::Range { .. } | Expr::Domain { .. } => return Err("a range value".into()),
            Expr::Tuple { .. } | Expr::TupleGet { .. } => return Err("tuples".into()),
        })
    }

    /// Atomic add of floats: a compare-and-swap loop on the bits.
    fn float_atomic_add(&mut self, ptr: &str, v: &str, t: ScalarType) -> Result<String, Reject> {
        let (it, ut, cas, as_int, as_float) = if t == ScalarType::F32 {
            (
                "int",
                "__global volatile int*",
                "atomic_cmpxchg",
                "as_int",
                "as_float",
            )
        } else {
            self.int64_atomics = true;
            (
                "long",
                "__global volatile long*",
                "atom_cmpxchg",
                "as_long",
                "as_double",
            )
        };
        let old = self.temp(t, "0")?;
        self.line("while (1) {");
        self.line(&format!("    {it} vr_cur = *(({ut}){ptr});"));
        self.line(&format!(
            "    {it} vr_got = {cas}(({ut}){ptr}, vr_cur, {as_int}({as_float}(vr_cur) + {v}));"
        ));
        self.line(&format!(
            "    if (vr_got == vr_cur) {{ {old} = {as_float}(vr_cur); break; }}"
        ));
        self.line("}");
        Ok(old)
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr) -> Result<String, Reject> {
        let t = self.scalar_type_of(lhs)?;
        if op.is_logical() {
            // Short-circuit on scalars.
            let a = self.expr(lhs)?;
            let r = self.temp(ScalarType::Bool, &a)?;
            self.line(&format!(
                "if ({}{r}) {{",
                if op == BinOp::And { "" } else { "!" }
            ));
            self.indent += 1;
            let b = self.expr(rhs)?;
            self.line(&format!("{r} = {b};"));
            self.indent -= 1;
            self.line("}");
            return Ok(r);
        }
        let a = self.expr(lhs)?;
        let b = self.expr(rhs)?;
        let ct = c_type(t)?;
        if op.is_comparison() {
            let sym = op.symbol();
            return Ok(format!("({a} {sym} {b})"));
        }
        Ok(match t {
            ScalarType::I32 | ScalarType::I64 => {
                let u = unsigned_of(t);
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        format!("(({ct})(({u})({a}) {} ({u})({b})))", op.symbol())
                    }
                    BinOp::Div | BinOp::IDiv | BinOp::Mod => {
                        let (x, y) = (self.temp(t, &a)?, self.temp(t, &b)?);
                        let site = self.site(SiteKind::DivisionByZero, None, String::new());
                        self.check(&format!("{y} != 0"), site, "0", "0", "-1", &[]);
                        // MIN / -1 wraps to MIN (its remainder is 0): never divide by -1.
                        let q = self.temp(
                            t,
                            &format!("({y} == -1) ? ({ct})(0 - ({u}){x}) : {x} / {y}"),
                        )?;
                        let r = self.temp(t, &format!("({y} == -1) ? 0 : {x} % {y}"))?;
                        match op {
                            BinOp::Div => q,
                            BinOp::IDiv => format!("(({r} != 0 && (({r} < 0) != ({y} < 0))) ? ({ct})(({u}){q} - 1) : {q})"),
                            _ => format!("(({r} != 0 && (({r} < 0) != ({y} < 0))) ? ({ct})(({u}){r} + ({u}){y}) : {r})"),
                        }
                    }
                    _ => return Err(format!("operator {} on {t}", op.symbol())),
                }
            }
            ScalarType::F32 | ScalarType::F64 => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                    format!("({a} {} {b})", op.symbol())
                }
                BinOp::IDiv => format!("floor({a} / {b})"),
                BinOp::Mod => {
                    let (x, y) = (self.temp(t, &a)?, self.temp(t, &b)?);
                    let q = self.temp(t, &format!("floor({x} / {y})"))?;
                    let p = self.temp(t, &format!("{q} * {y}"))?;
                    format!("({x} - {p})")
                }
                _ => return Err(format!("operator {} on {t}", op.symbol())),
            },
            _ => return Err(format!("operator {} on {t}", op.symbol())),
        })
    }

    fn cast(&mut self, a: &str, from: ScalarType, to: ScalarType) -> Result<String, Reject> {
        c_type(to)?;
        if from == to {
            return Ok(a.to_string());
        }
        if to == ScalarType::Bool {
            return Ok(format!("({a} != 0)"));
        }
        if from == ScalarType::Bool {
            return Ok(format!("(({})({a} ? 1 : 0))", c_type(to)?));
        }
        if from.is_float() && to.is_int() {
            let x = self.temp(from, a)?;
            let tr = self.temp(from, &format!("trunc({x})"))?;
            let fits = if to == ScalarType::I32 {
                format!("({tr} >= -2147483648.0 && {tr} <= 2147483647.0)")
            } else {
                format!("({tr} >= -9223372036854775808.0 && {tr} < 9223372036854775808.0)")
            };
            let from_ix = ScalarType::ALL.iter().position(|s| *s == from).unwrap_or(0);
            let to_ix = ScalarType::ALL.iter().position(|s| *s == to).unwrap_or(0);
            let site = self.site(SiteKind::InvalidCast, None, String::new());
            self.fp64 |= from == ScalarType::F64;
            // The host widens f32 bits to the f64 bits the message decoder reads.
            let bits = if from == ScalarType::F64 {
                format!("as_long({x})")
            } else {
                format!("(long)as_uint({x})")
            };
            self.check(
                &format!("!isnan({x}) && {fits}"),
                site,
                &bits,
                &from_ix.to_string(),
                &to_ix.to_string(),
                &[],
            );
            return Ok(format!("(({})({tr}))", c_type(to)?));
        }
        Ok(format!("(({})({a}))", c_type(to)?))
    }

    fn lib(&mut self, f: LibFn, args: &[Expr], t: ScalarType) -> Result<String, Reject> {
        if matches!(f, LibFn::Len | LibFn::Ndims) {
            let Some(Expr::Var { name }) = args.first() else {
                return Err(format!("{} of an array expression", f.name()));
            };
            let kv = self.var(name)?;
            let Type::Array(a) = kv.ty else {
                return Err(format!("{} of a scalar", f.name()));
            };
            if f == LibFn::Ndims {
                return Ok(format!("({}L)", a.ndims));
            }
            let dims: Vec<String> = (0..a.ndims).map(|k| format!("{}_d{k}", kv.c)).collect();
            return Ok(format!("({})", dims.join(" * ")));
        }
        let at = match args.first() {
            Some(a) => self.scalar_type_of(a)?,
            None => return Err(format!("{} without arguments", f.name())),
        };
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let x = vals[0].clone();
        let float = at.is_float();
        Ok(match f {
            LibFn::Sqrt
            | LibFn::Exp
            | LibFn::Log
            | LibFn::Log10
            | LibFn::Sin
            | LibFn::Cos
            | LibFn::Tan
            | LibFn::Asin
            | LibFn::Acos
            | LibFn::Atan
            | LibFn::Sinh
            | LibFn::Cosh
            | LibFn::Tanh
            | LibFn::Expm1
                if float =>
            {
                format!("{}({x})", f.name())
            }
            LibFn::Abs if float => format!("fabs({x})"),
            LibFn::Abs => {
                let u = unsigned_of(at);
                let ct = c_type(at)?;
                let v = self.temp(at, &x)?;
                format!("(({v} < 0) ? ({ct})(0 - ({u}){v}) : {v})")
            }
            LibFn::Floor | LibFn::Ceil | LibFn::Trunc if float => format!("{}({x})", f.name()),
            LibFn::Round if float => format!("rint({x})"),
            LibFn::Floor | LibFn::Ceil | LibFn::Trunc | LibFn::Round => x,
            LibFn::IsNan if float => format!("(isnan({x}) != 0)"),
            LibFn::IsInf if float => format!("(isinf({x}) != 0)"),
            LibFn::IsNan | LibFn::IsInf => "false".into(),
            LibFn::Real | LibFn::Conj => x,
            LibFn::Imag => format!("(({})0)", c_type(t)?),
            LibFn::Atan2 if float => format!("atan2({x}, {})", vals[1]),
            LibFn::Pow if float => format!("pow({x}, {})", vals[1]),
            LibFn::Pow => {
                let (b, e) = (self.temp(at, &x)?, self.temp(at, &vals[1])?);
                let site = self.site(SiteKind::NegativeExponent, None, String::new());
                self.check(&format!("{e} >= 0"), site, &e, "0", "-1", &[]);
                let u = unsigned_of(at);
                let acc = self.temp(at, "1")?;
                self.line("{");
                self.line(&format!(
                    "    {u} vr_b = ({u}){b}, vr_a = 1; ulong vr_e = (ulong){e};"
                ));
                self.line("    while (vr_e > 0) { if (vr_e & 1) vr_a *= vr_b; vr_b *= vr_b; vr_e >>= 1; }");
                self.line(&format!("    {acc} = ({})vr_a;", c_type(at)?));
                self.line("}");
                acc
            }
            LibFn::Min | LibFn::Max if float => {
                let (a, b) = (self.temp(at, &x)?, self.temp(at, &vals[1])?);
                let nan = if at == ScalarType::F32 {
                    "((float)NAN)"
                } else {
                    "((double)NAN)"
                };
                // Not fmin/fmax: OpenCL leaves the sign of a zero tie open; VRIR keeps the first.
                let wins = if f == LibFn::Min { "<" } else { ">" };
                format!("((isnan({a}) || isnan({b})) ? {nan} : (({b} {wins} {a}) ? {b} : {a}))")
            }
            LibFn::Min | LibFn::Max => {
                let (a, b) = (self.temp(at, &x)?, self.temp(at, &vals[1])?);
                let le = if f == LibFn::Min { "<=" } else { ">" };
                format!("(({a} {le} {b}) ? {a} : {b})")
            }
            LibFn::Rem if float => format!("fmod({x}, {})", vals[1]),
            LibFn::Rem => {
                let (a, b) = (self.temp(at, &x)?, self.temp(at, &vals[1])?);
                let site = self.site(SiteKind::DivisionByZero, None, String::new());
                self.check(&format!("{b} != 0"), site, "0", "0", "-1", &[]);
                format!("(({b} == -1) ? 0 : {a} % {b})")
            }
            other => return Err(format!("library function {} on {at}", other.name())),
        })
    }
}

fn contains_break_or_continue(stmts: &[Stmt]) -> bool {
    // Only those that act on this loop: not inside a nested loop.
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::Block(b) => contains_break_or_continue(&b.stmts),
        StmtKind::If { then, els, .. } => {
            contains_break_or_continue(&then.stmts)
                || els
                    .as_ref()
                    .is_some_and(|e| contains_break_or_continue(&e.stmts))
        }
        _ => false,
    })
}

/// Bytes per element in device memory.
pub fn device_elem_size(t: ScalarType) -> usize {
    elem_size(t)
}
