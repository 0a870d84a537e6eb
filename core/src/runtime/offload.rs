//! Offloading: the neutral contract between the cpu backend, which compiles every
//! statement of a module, and an offload engine (today the GPU's, `gpu/`), which may take
//! some statements over at run time. Neither side imports the other: the driver
//! (`driver/`) asks the engine for a plan, hands the plan to the cpu backend and the
//! engine to the compiled module.
//!
//! A plan names statements by their preorder number in their function
//! (`analysis::stmt_ids` numbering) and attaches actions to them; compiled code calls the
//! engine at those points with the addresses of the action's variables:
//! - `before`: a call before the statement's CPU code (a synchronisation point: arrays
//!   the statement reads must be fresh in host memory, arrays it writes become stale on
//!   the device; or the end of a section);
//! - `task`: the engine may run the statement itself. It answers done, failed (an error
//!   like the interpreter's) or declined; when it declines, the statement's own CPU code
//!   runs, so every offloaded statement keeps a compiled CPU version;
//! - `cond`: for `while`, a call before each evaluation of the condition;
//! - `after`: a call after the statement (the end of an `on_gpu` block).
//!
//! The engine keeps what each action means; compiled code only knows its number and its
//! variables. A per-call [`OffloadSession`] holds the engine's state for one top-level
//! call on one thread (buffers, queues); code without a session (parfor workers, calls
//! made without an engine) gets "declined" for tasks and "done" for the rest, which is
//! correct because the statement enclosing such code was synchronised as a whole.

#![allow(clippy::result_large_err)]

use crate::runtime::error::{VrError, VrResult};
use crate::runtime::value::Scalar;
use crate::vrir::ast::Expr;
use crate::vrir::types::{ScalarType, Type};
use std::collections::HashMap;
use std::sync::Arc;

/// One call into the engine: its number (unique in the plan), the variables whose
/// addresses compiled code passes, in this order, and scalar expressions compiled code
/// evaluates just before the call and passes by value (a parfor's domain bounds). The
/// engine chooses these expressions so that evaluating them early changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub id: u32,
    pub vars: Vec<(String, Type)>,
    pub values: Vec<(Expr, ScalarType)>,
}

/// The actions attached to one statement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StmtPlan {
    pub before: Option<Action>,
    pub task: Option<Action>,
    pub cond: Option<Action>,
    pub after: Option<Action>,
}

/// Actions per statement (preorder number) of one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionPlan {
    pub stmts: HashMap<usize, StmtPlan>,
}

/// Actions for a whole module. Functions without actions are absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OffloadPlan {
    pub functions: HashMap<String, FunctionPlan>,
}

impl OffloadPlan {
    pub fn is_empty(&self) -> bool {
        self.functions.values().all(|f| f.stmts.is_empty())
    }

    /// Every action by number (for the compiled side's glue).
    pub fn actions(&self) -> HashMap<u32, Action> {
        let mut out = HashMap::new();
        for f in self.functions.values() {
            for s in f.stmts.values() {
                for a in [&s.before, &s.task, &s.cond, &s.after]
                    .into_iter()
                    .flatten()
                {
                    out.insert(a.id, a.clone());
                }
            }
        }
        out
    }
}

/// What the engine did with an action.
#[derive(Debug)]
pub enum Outcome {
    Done,
    /// The statement's CPU code must run (no device, a construct or size the engine does
    /// not place, a kernel that failed to build). The engine has made every array the
    /// statement may touch fresh in host memory first.
    Declined,
    /// A run-time error, with the fields the interpreter would report.
    Failed(VrError),
}

/// An array in host memory as compiled code holds it: `data` points at element
/// (0, ..., 0); strides in elements (may be negative or zero).
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    pub data: *mut u8,
    pub elem: ScalarType,
    pub dims: Vec<i64>,
    pub strides: Vec<i64>,
}

impl HostArray {
    /// Bytes per element (bool: one byte; complex: two floats).
    pub fn elem_size(&self) -> usize {
        elem_size(self.elem)
    }

    /// The bytes its elements occupy, as `[lo, hi)` host addresses (empty when it has no
    /// elements): every element lies inside, whatever the strides' signs.
    pub fn byte_range(&self) -> (usize, usize) {
        let es = self.elem_size() as i64;
        if self.dims.iter().any(|d| *d <= 0) {
            return (self.data as usize, self.data as usize);
        }
        let (mut lo, mut hi) = (0i64, 0i64);
        for (d, s) in self.dims.iter().zip(&self.strides) {
            let far = (d - 1) * s;
            if far < 0 {
                lo += far;
            } else {
                hi += far;
            }
        }
        let base = self.data as i64;
        ((base + lo * es) as usize, (base + (hi + 1) * es) as usize)
    }

    pub fn len(&self) -> i64 {
        self.dims.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Bytes per element of a scalar type in memory (bool is one byte).
pub fn elem_size(t: ScalarType) -> usize {
    match t {
        ScalarType::Bool => 1,
        ScalarType::I32 | ScalarType::F32 => 4,
        ScalarType::I64 | ScalarType::F64 | ScalarType::C64 => 8,
        ScalarType::C128 => 16,
    }
}

/// The variables of one action as the engine sees them (implemented by the compiled
/// side over the addresses it passed). `k` indexes [`Action::vars`].
pub trait ActionEnv {
    /// The scalar's value, or None when it holds none yet.
    fn scalar(&self, k: usize) -> Option<Scalar>;
    /// Assign the scalar (marks it assigned).
    fn set_scalar(&mut self, k: usize, v: Scalar);
    /// The array the variable refers to, or None when it holds none yet.
    fn array(&self, k: usize) -> Option<HostArray>;
    /// Value `k` of [`Action::values`], as compiled code evaluated it.
    fn value(&self, k: usize) -> Scalar;
    /// Allocate a new array of the variable's type and extents in the call's memory,
    /// make the variable refer to it, and return it. Its contents are unspecified.
    fn new_array(&mut self, k: usize, dims: &[i64]) -> VrResult<HostArray>;
    /// Make array variable `k` refer again to `prev`, what [`ActionEnv::array`] answered
    /// before a [`ActionEnv::new_array`] (None: unassigned). A task that gave its target a
    /// new array and then declines leaves the variable as the statement's CPU code
    /// expects it (`a = a + 1` reads `a`).
    fn restore_array(&mut self, k: usize, prev: Option<&HostArray>);
}

/// The engine: one per compiled module.
pub trait OffloadEngine: Send + Sync {
    /// A session for one top-level call (used by one thread).
    fn session(&self) -> Box<dyn OffloadSession>;
    /// What the engine did so far, for `explain` (lines of text; empty by default).
    fn report(&self) -> String {
        String::new()
    }
}

/// One call's engine state.
pub trait OffloadSession {
    fn act(&mut self, action: u32, env: &mut dyn ActionEnv) -> Outcome;
    /// Before the call runs: host byte ranges `[lo, hi)` of arguments whose contents the
    /// host vouches are the same as when it last passed them (and that the call does not
    /// write), so that copies an earlier call left on a device may be reused.
    fn stable_arrays(&mut self, _ranges: &[(usize, usize)]) {}
    /// The call is over (returned or failed): wait for the device, and answer an error
    /// of work not checked yet, which the serial order met before any later one.
    fn finish(&mut self) -> Option<VrError> {
        None
    }
}

/// A plan and the engine that carries it out: what a compiled module is given.
#[derive(Clone)]
pub struct Offload {
    pub plan: Arc<OffloadPlan>,
    pub engine: Arc<dyn OffloadEngine>,
}

impl std::fmt::Debug for Offload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offload").field("plan", &self.plan).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_cover_every_element_whatever_the_strides() {
        let mut a = HostArray {
            data: 1000 as *mut u8,
            elem: ScalarType::F64,
            dims: vec![2, 3],
            strides: vec![3, 1],
        };
        assert_eq!(a.byte_range(), (1000, 1048));
        // A reversed view whose element (0, 0) is the last of its storage.
        a.strides = vec![-3, -1];
        assert_eq!(a.byte_range(), (1000 - 40, 1008));
        a.dims = vec![0, 3];
        assert_eq!(a.byte_range(), (1000, 1000));
        assert!(a.is_empty());
    }
}
