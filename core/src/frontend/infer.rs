//! Type inference and specialization: the driver that turns "function F of this source,
//! called with these argument types" into a VRIR module.
//!
//! Inference is forward propagation from the argument types, flow-insensitive per
//! variable: every variable gets the join of the types of everything assigned to it
//! (`types::join`), because a VRIR variable has one type for its whole life. It runs the
//! lowering itself (`lower::Lowerer`) in a non-emitting mode until nothing changes: the
//! types of expressions are computed in exactly one place. An expression whose type
//! depends on something not known yet (a variable assigned later in a loop, the result
//! of a recursive call) is `NotYet` and is skipped in that round; in the final round
//! anything still unknown is an error naming the variable.
//!
//! Each (function, argument types) pair is one specialization, compiled once into the
//! module; calls between functions of the source (including recursion) find or create
//! their callee's specialization, so the module holds exactly what the entry reaches.

use super::hir::{Expr, FunctionDef};
use super::lift::Closures;
use super::lower::{LErr, Lowerer};
use super::rules::Language;
use super::types::{AnyTy, ListTy, Ty};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::{Function, Module};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Rounds of inference before giving up (the lattice is shallow; real code needs 2-4).
const MAX_ROUNDS: usize = 64;

/// What a specialization returns: `None` while unknown, else the types of its results
/// (none for R's `NULL`; one for an ordinary value; several from the engine's results
/// marker, e.g. an outlined section's outputs).
pub type RetTy = Option<Vec<Ty>>;

/// One compiled instance of a source function.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The source function's name.
    pub source_name: String,
    /// The VRIR function's name: the source name for the first specialization,
    /// `name__2`, `name__3`, ... for further ones.
    pub vrir_name: String,
    /// One entry per formal parameter: its type, or None when the call leaves it to
    /// its default.
    pub args: Vec<Option<AnyTy>>,
    pub ret: RetTy,
    /// Variable types found so far (the elements of list variables included, as
    /// `list$name`).
    pub vars: BTreeMap<String, Ty>,
    /// Vectors that grow by assignment (`growth`): found so far, never removed.
    pub growable: BTreeSet<String>,
    /// The list variables found so far, with their shapes.
    pub lists: BTreeMap<String, ListTy>,
    /// The names of the list the function returns (its elements are the results, in
    /// `ListTy::leaves` order); None when it returns scalars or arrays.
    pub ret_list: Option<ListTy>,
}

/// What one inference round found about a specialization.
pub struct Round {
    pub ret: RetTy,
    pub ret_list: Option<ListTy>,
    pub vars: BTreeMap<String, Ty>,
    pub lists: BTreeMap<String, ListTy>,
    pub growable: BTreeSet<String>,
}

/// Every function of one source file and the specializations compiled so far.
pub struct Program {
    pub lang: &'static dyn Language,
    pub defs: HashMap<String, FunctionDef>,
    /// Top-level names bound to constants (free variables a function may read).
    pub constants: HashMap<String, Expr>,
    /// Free variables the host reads from the function's environment at each call (R:
    /// the globals of `vr_compile`), in order, with their types: every specialization
    /// takes them as trailing hidden parameters (`lists::global_var`) and passes them on.
    pub globals: Vec<(String, AnyTy)>,
    pub specs: Vec<Spec>,
    /// Helper functions the rule table adds (error raisers), by name.
    pub helpers: BTreeMap<String, Function>,
    /// Functions defined inside functions, lifted into `defs` (`frontend::lift`).
    pub closures: Closures,
}

impl Program {
    pub fn new(lang: &'static dyn Language) -> Program {
        Program { lang, defs: HashMap::new(), constants: HashMap::new(), globals: Vec::new(), specs: Vec::new(), helpers: BTreeMap::new(), closures: Closures::default() }
    }

    /// The program function a call of `name` from program function `scope` reaches: a
    /// function defined in `scope` or around it (nearest first), a lifted function by
    /// its program name, or a top-level function.
    pub fn resolve_function(&self, scope: &str, name: &str) -> Option<String> {
        if let Some(p) = self.closures.resolve(scope, name) {
            return Some(p);
        }
        self.defs.contains_key(name).then(|| name.to_string())
    }

    /// The specialization of `name` for these argument types, created when new.
    pub fn spec_for(&mut self, name: &str, args: Vec<Option<AnyTy>>) -> usize {
        if let Some(i) = self.specs.iter().position(|s| s.source_name == name && s.args == args) {
            return i;
        }
        let taken = self.specs.iter().filter(|s| s.source_name == name).count();
        let base = match self.closures.lifted.get(name) {
            Some(l) => l.vrir_base.clone(),
            None => self.lang.vrir_name(name),
        };
        let vrir_name = if taken == 0 { base } else { format!("{base}__{}", taken + 1) };
        self.specs.push(Spec { source_name: name.into(), vrir_name, args, ret: None, vars: BTreeMap::new(), growable: BTreeSet::new(), lists: BTreeMap::new(), ret_list: None });
        self.specs.len() - 1
    }

    /// The list the compiled `entry` returns, with its elements' types (None when it
    /// returns scalars or arrays): how a host turns the results back into a list.
    pub fn result_list(&self, entry: &str) -> Option<ListTy> {
        let s = self.specs.iter().find(|s| s.source_name == entry)?;
        let l = s.ret_list.as_ref()?;
        let ret = s.ret.as_ref()?;
        (l.leaves().len() == ret.len()).then(|| l.with_leaves(&mut ret.iter().copied()))
    }

    /// The result types of the compiled `entry` (its first specialization), classes
    /// included (`Ty::class`).
    pub fn result_types(&self, entry: &str) -> Option<Vec<Ty>> {
        self.specs.iter().find(|s| s.source_name == entry)?.ret.clone()
    }

    /// Compile `entry` for `args` (one type per formal parameter given; the rest take
    /// their defaults) and every function it reaches into one module.
    pub fn compile(&mut self, module_name: &str, entry: &str, args: Vec<Option<AnyTy>>) -> VrResult<Module> {
        let Some(def) = self.defs.get(entry).filter(|_| !self.closures.lifted.contains_key(entry)) else {
            let mut names: Vec<&String> = self.defs.keys().filter(|n| !self.closures.lifted.contains_key(*n)).collect();
            names.sort();
            return Err(VrError::new(
                ErrorKind::InvalidArgument,
                format!("no function `{entry}` in the source (it defines: {})", names.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")),
            ));
        };
        if args.len() > def.params.len() {
            return Err(VrError::new(
                ErrorKind::InvalidArgument,
                format!("`{entry}` takes {} argument(s), got {}", def.params.len(), args.len()),
            ));
        }
        let mut args = args;
        args.resize(def.params.len(), None);
        for (p, a) in def.params.iter().zip(&args) {
            if a.is_none() && p.default.is_none() && !self.lang.optional_arguments() {
                return Err(VrError::new(
                    ErrorKind::InvalidArgument,
                    format!("argument `{}` of `{entry}` is missing, with no default", p.name),
                ));
            }
        }
        self.spec_for(entry, args);
        let mut round = 0;
        loop {
            round += 1;
            let mut changed = false;
            let mut i = 0;
            while i < self.specs.len() {
                let before = (self.specs[i].ret.clone(), self.specs[i].vars.clone(), self.specs[i].growable.clone(), self.specs[i].lists.clone(), self.specs[i].ret_list.clone());
                let mut lw = Lowerer::new(self, i, false);
                match lw.lower_function() {
                    Ok(_) | Err(LErr::NotYet) => {}
                    Err(LErr::Fail(e)) => return Err(e),
                }
                let round = lw.finish_round();
                let spec = &mut self.specs[i];
                if round.ret.is_some() {
                    spec.ret_list = round.ret_list;
                }
                spec.ret = round.ret.or(spec.ret.take());
                spec.vars = round.vars;
                spec.lists = round.lists;
                spec.growable.extend(round.growable);
                if (spec.ret.clone(), spec.vars.clone(), spec.growable.clone(), spec.lists.clone(), spec.ret_list.clone()) != before {
                    changed = true;
                }
                i += 1;
            }
            if !changed {
                break;
            }
            if round > MAX_ROUNDS {
                return Err(VrError::new(ErrorKind::Internal, "type inference did not settle"));
            }
        }
        let mut functions = Vec::new();
        for i in 0..self.specs.len() {
            let mut lw = Lowerer::new(self, i, true);
            match lw.lower_function() {
                Ok(f) => functions.push(f),
                Err(LErr::Fail(e)) => return Err(e),
                Err(LErr::NotYet) => {
                    let s = &self.specs[i];
                    return Err(VrError::new(
                        ErrorKind::Type,
                        format!("cannot infer the type of `{}`'s result: every path depends on itself (recursion without a base case?)", s.source_name),
                    )
                    .with_function(&s.source_name));
                }
            }
        }
        functions.extend(self.helpers.values().cloned());
        Ok(Module { name: module_name.into(), index_base: self.lang.index_base(), functions })
    }
}
