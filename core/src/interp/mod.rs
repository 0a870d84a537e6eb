//! The reference interpreter: the semantic oracle for every backend.
//!
//! It implements docs/vrir-semantics.md directly on the AST, choosing correctness and
//! clarity over speed. Files by concern:
//! - `mod.rs`: the public entry point, call frames, argument checking, error context;
//! - `exec.rs`: statements and control flow;
//! - `eval.rs`: expressions;
//! - `index.rs`: array reads and writes through indices (views, gathers, masks, `:flat`);
//! - `arith.rs`: scalar arithmetic, casts and the scalar math library;
//! - `array_ops.rs`: element-wise application, reductions, matmul, transpose, allocation;
//! - `extended.rs`: accumulator types (`:acc f80`, exact in software) and the means.
//!
//! The interpreter never panics on a verified module and returns an
//! [`ErrorKind::Internal`] error for what the verifier should have ruled out.

// `VrError` is the crate-wide error type, large by design (it names function, line,
// variable, index, bound, dimension); boxing it is a decision for the whole crate.
#![allow(clippy::result_large_err)]

mod arith;
mod array_ops;
mod extended;
pub(crate) use array_ops::element_count;
mod eval;
mod exec;
mod index;

#[cfg(test)]
mod tests;

use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{Array, Value};
use crate::vrir::ast::{Function, Module};
use crate::vrir::types::{Layout, Type};
use std::cell::RefCell;
use std::collections::HashMap;

/// Calls nested deeper than this fail with "recursion too deep" instead of overflowing
/// the stack.
pub const MAX_CALL_DEPTH: usize = 10_000;

/// Stack sizes tried, in order, for the thread the interpreter runs on: the first is
/// large enough for `MAX_CALL_DEPTH` nested calls of the tree-walking evaluator (only
/// the pages actually touched are committed); the second is for when memory is short.
const INTERP_STACK_BYTES: [usize; 2] = [1 << 30, 256 << 20];

/// Run `func` of module `m` on `args`; returns the function's results (empty for a void
/// function). Array arguments are passed by reference: writes to them are visible to
/// the caller through its own handles on the same buffers.
pub fn run(m: &Module, func: &str, args: Vec<Value>) -> VrResult<Vec<Value>> {
    // The interpreter recurses on the Rust stack (calls, nested expressions), so it runs
    // on a thread of its own with a large stack. `Value` holds `Rc`s and is neither `Send`
    // nor `Sync`; the worker takes the arguments out of `slot` and hands the results
    // back while the calling thread is blocked in `join`, so no reference count is ever
    // touched by two threads at once.
    struct Carry<T>(T);
    // SAFETY: see above: the caller is suspended for the whole life of the worker
    // thread, and thread spawn/join order every access to the shared `Rc` counts.
    unsafe impl<T> Send for Carry<T> {}
    unsafe impl<T> Sync for Carry<T> {}

    let slot = Carry(RefCell::new(Some(args)));
    for stack in INTERP_STACK_BYTES {
        let spawned = std::thread::scope(|scope| {
            let slot = &slot;
            let worker = std::thread::Builder::new()
                .name("vr-interp".into())
                .stack_size(stack)
                .spawn_scoped(scope, move || {
                    let args = slot.0.borrow_mut().take().unwrap_or_default();
                    Carry(run_here(m, func, args, stack))
                });
            worker.map(|handle| match handle.join() {
                Ok(out) => out.0,
                Err(_) => Err(
                    VrError::new(ErrorKind::Internal, "the interpreter panicked")
                        .with_function(func),
                ),
            })
        });
        if let Ok(out) = spawned {
            return out;
        }
    }
    // No thread could be started (memory is short): run on this thread, whose stack
    // size is unknown; assume only a small one.
    let args = slot.0.borrow_mut().take().unwrap_or_default();
    run_here(m, func, args, FALLBACK_STACK_BYTES)
}

/// `run` on the current thread; `stack` is the size of this thread's stack (an estimate when unknown).
fn run_here(m: &Module, func: &str, args: Vec<Value>, stack: usize) -> VrResult<Vec<Value>> {
    let f = m.function(func).ok_or_else(|| {
        VrError::new(
            ErrorKind::InvalidArgument,
            format!("no function `{func}` in module `{}`", m.name),
        )
    })?;
    if args.len() != f.params.len() {
        return Err(VrError::new(
            ErrorKind::InvalidArgument,
            format!(
                "`{func}` takes {} arguments but {} were given",
                f.params.len(),
                args.len()
            ),
        )
        .with_function(func));
    }
    let mut checked = Vec::with_capacity(args.len());
    for (arg, p) in args.into_iter().zip(&f.params) {
        check_argument(&arg, &p.ty).map_err(|msg| {
            VrError::new(
                ErrorKind::InvalidArgument,
                format!("argument `{}`: {msg}", p.name),
            )
            .with_function(func)
        })?;
        checked.push(conform(arg, &p.ty));
    }
    let mut interp = Interp {
        module: m,
        depth: 0,
        stack_base: stack_address(),
        stack_budget: stack.saturating_sub(STACK_RESERVE_BYTES),
    };
    interp.call_function(f, checked)
}

/// Interpreter state shared by all frames of one `run`.
pub(crate) struct Interp<'m> {
    pub(crate) module: &'m Module,
    /// Number of function frames currently active.
    depth: usize,
    /// Address of a local at the start of the interpretation, and how many bytes below
    /// (or above) it the interpreter may use before it stops with "recursion too deep".
    stack_base: usize,
    stack_budget: usize,
}

/// Stack kept free below the budget: more than any single interpreter frame needs.
const STACK_RESERVE_BYTES: usize = 1 << 20;

/// Stack assumed when the interpreter has to run on the caller's thread.
const FALLBACK_STACK_BYTES: usize = 2 << 20;

/// An address in the current stack frame.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// One function activation: its variables, each with its declared type and its value
/// (None = declared but holding no value).
pub(crate) struct Frame<'m> {
    vars: HashMap<&'m str, Slot<'m>>,
}

struct Slot<'m> {
    ty: &'m Type,
    value: Option<Value>,
}

impl<'m> Frame<'m> {
    fn new(func: &'m Function) -> Frame<'m> {
        let mut vars = HashMap::new();
        // Parameters last, so that their declaration wins as in `Function::var_type`.
        for l in &func.locals {
            vars.insert(
                l.name.as_str(),
                Slot {
                    ty: &l.ty,
                    value: None,
                },
            );
        }
        for p in &func.params {
            vars.insert(
                p.name.as_str(),
                Slot {
                    ty: &p.ty,
                    value: None,
                },
            );
        }
        Frame { vars }
    }

    /// The declared type of a variable.
    pub(crate) fn var_type(&self, name: &str) -> Option<&'m Type> {
        self.vars.get(name).map(|s| s.ty)
    }

    /// The value of a variable; reading one that holds no value is a run-time error.
    pub(crate) fn get(&self, name: &str) -> VrResult<&Value> {
        match self.vars.get(name) {
            Some(Slot { value: Some(v), .. }) => Ok(v),
            Some(Slot { value: None, .. }) => Err(VrError::runtime(format!(
                "use of unassigned variable `{name}`"
            ))
            .with_variable(name)),
            None => Err(internal(format!("undeclared variable `{name}`"))),
        }
    }

    /// Assign a variable, adjusting an array's layout tag to the declared type (a
    /// `strided` variable may hold any layout and is then seen as strided).
    pub(crate) fn set(&mut self, name: &str, v: Value) -> VrResult<()> {
        let slot = self
            .vars
            .get_mut(name)
            .ok_or_else(|| internal(format!("undeclared variable `{name}`")))?;
        check_argument(&v, slot.ty)
            .map_err(|msg| internal(format!("assignment to `{name}`: {msg}")))?;
        slot.value = Some(conform(v, slot.ty));
        Ok(())
    }

    /// Make a variable hold no value (`free`).
    pub(crate) fn clear(&mut self, name: &str) -> VrResult<()> {
        match self.vars.get_mut(name) {
            Some(slot) => {
                slot.value = None;
                Ok(())
            }
            None => Err(internal(format!("undeclared variable `{name}`"))),
        }
    }
}

impl<'m> Interp<'m> {
    /// Fails with "recursion too deep" when the Rust stack is nearly used up: calls
    /// nested below `MAX_CALL_DEPTH` but with deeply nested expressions, or a build
    /// whose frames are larger than usual, stop with an error instead of overflowing.
    pub(crate) fn check_stack(&self) -> VrResult<()> {
        if self.stack_base.abs_diff(stack_address()) > self.stack_budget {
            return Err(VrError::runtime(
                "recursion too deep: the interpreter's stack is exhausted",
            ));
        }
        Ok(())
    }

    /// Call a module function on already-evaluated arguments.
    pub(crate) fn call_function(
        &mut self,
        f: &'m Function,
        args: Vec<Value>,
    ) -> VrResult<Vec<Value>> {
        if self.depth >= MAX_CALL_DEPTH {
            // Reported in the caller, at the statement making the call.
            return Err(VrError::runtime(format!(
                "recursion too deep: calling `{}` would exceed {MAX_CALL_DEPTH} nested calls",
                f.name
            )));
        }
        self.check_stack()?;
        self.depth += 1;
        let out = self.call_inner(f, args);
        self.depth -= 1;
        out.map_err(|e| e.with_function(&f.name))
    }

    fn call_inner(&mut self, f: &'m Function, args: Vec<Value>) -> VrResult<Vec<Value>> {
        if args.len() != f.params.len() {
            return Err(internal(format!(
                "`{}` called with {} arguments, takes {}",
                f.name,
                args.len(),
                f.params.len()
            )));
        }
        let mut frame = Frame::new(f);
        for (p, a) in f.params.iter().zip(args) {
            frame.set(&p.name, a)?;
        }
        match self.exec_stmts(&mut frame, &f.body)? {
            exec::Flow::Return(values) => {
                if values.len() != f.results.len() {
                    return Err(internal(format!(
                        "return of {} values from a function of {} results",
                        values.len(),
                        f.results.len()
                    )));
                }
                let mut out = Vec::with_capacity(values.len());
                for (v, t) in values.into_iter().zip(&f.results) {
                    check_argument(&v, t)
                        .map_err(|msg| internal(format!("returned value: {msg}")))?;
                    out.push(conform(v, t));
                }
                Ok(out)
            }
            exec::Flow::Break | exec::Flow::Continue => {
                Err(internal("break or continue outside a loop"))
            }
            exec::Flow::Normal if f.results.is_empty() => Ok(Vec::new()),
            exec::Flow::Normal => Err(VrError::runtime(
                "missing return: the function ended without returning its results",
            )),
        }
    }
}

/// An "internal error": something a verified module cannot do.
pub(crate) fn internal(msg: impl Into<String>) -> VrError {
    VrError::new(ErrorKind::Internal, msg)
}

/// Does `v` fit type `t`? Checks element type, rank, layout (a `strided` type accepts any
/// layout), and that an array's window lies inside its buffer (so no access can panic).
pub(crate) fn check_argument(v: &Value, t: &Type) -> Result<(), String> {
    match (v, t) {
        (Value::Scalar(s), Type::Scalar { elem }) if s.ty() == *elem => Ok(()),
        (Value::Array(a), Type::Array(at)) => {
            if a.ty.elem != at.elem || a.ty.ndims != at.ndims {
                return Err(format!("expected {at}, got {}", a.ty));
            }
            if at.layout != Layout::Strided && a.ty.layout != at.layout {
                return Err(format!("expected {at}, got {}", a.ty));
            }
            check_window(a)
        }
        (Value::Range(_), Type::Range) => Ok(()),
        (Value::Domain(rs), Type::Domain { ndims }) if rs.len() == *ndims as usize => Ok(()),
        (Value::Tuple(items), Type::Tuple { items: ts }) if items.len() == ts.len() => items
            .iter()
            .zip(ts)
            .try_for_each(|(v, t)| check_argument(v, t)),
        _ => Err(format!("expected a value of type {t}, got {}", describe(v))),
    }
}

/// An array's dims, strides, element type and offset must describe elements that all
/// lie inside its buffer.
fn check_window(a: &Array) -> Result<(), String> {
    let n = a.ty.ndims as usize;
    if a.dims.len() != n || a.strides.len() != n {
        return Err(format!(
            "array of rank {n} with {} dims and {} strides",
            a.dims.len(),
            a.strides.len()
        ));
    }
    let buf = a.data.borrow();
    if buf.elem() != a.ty.elem {
        return Err(format!(
            "array of {} over a buffer of {}",
            a.ty.elem,
            buf.elem()
        ));
    }
    if a.dims.contains(&0) {
        return Ok(());
    }
    let (mut lo, mut hi) = (a.offset as i128, a.offset as i128);
    for (&d, &s) in a.dims.iter().zip(&a.strides) {
        let span = (d as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    if lo < 0 || hi >= buf.len() as i128 {
        return Err(format!(
            "array window (dims {:?}, strides {:?}, offset {}) outside its buffer of {}",
            a.dims,
            a.strides,
            a.offset,
            buf.len()
        ));
    }
    Ok(())
}

/// Retag an array to the layout of the type it is now seen as (only `strided` differs).
fn conform(v: Value, t: &Type) -> Value {
    match (v, t) {
        (Value::Array(mut a), Type::Array(at)) => {
            a.ty.layout = at.layout;
            Value::Array(a)
        }
        (Value::Tuple(items), Type::Tuple { items: ts }) => Value::Tuple(
            items
                .into_iter()
                .zip(ts)
                .map(|(v, t)| conform(v, t))
                .collect(),
        ),
        (v, _) => v,
    }
}

/// A short description of a value's type, for messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Scalar(s) => s.ty().to_string(),
        Value::Array(a) => a.ty.to_string(),
        Value::Range(_) => "range".into(),
        Value::Domain(rs) => format!("domain[{}]", rs.len()),
        Value::Tuple(items) => format!(
            "(tuple {})",
            items.iter().map(describe).collect::<Vec<_>>().join(" ")
        ),
        Value::Void => "void".into(),
    }
}
