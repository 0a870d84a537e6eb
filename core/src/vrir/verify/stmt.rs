//! Statements and control flow: assignments and their targets, conditions, loop headers,
//! where `break`, `continue`, `return` and atomics may stand, return arity and types.
//! Every error gets its location here: function, statement path, kind and source line.

use std::collections::HashSet;

use super::expr::{Check, ExprChecker, Position};
use super::{assignable, MAX_NESTING};
use crate::runtime::error::{VrError, VrResult};
use crate::vrir::ast::{Expr, Function, LValue, Module, Stmt, StmtKind};
use crate::vrir::types::{ScalarType, Type};

/// Checks the body of `f`, whose signature has been checked.
pub(super) fn check_body(m: &Module, f: &Function) -> VrResult<()> {
    let checker = StmtChecker {
        function: f,
        exprs: ExprChecker::new(m, f),
    };
    checker.block(
        &f.body,
        None,
        Context {
            innermost_loop: None,
            in_parfor: false,
            no_draws: None,
            depth: 0,
        },
    )
}

/// The name of a statement's kind in error messages.
pub(super) fn kind_name(k: &StmtKind) -> &'static str {
    match k {
        StmtKind::Block(_) => "block",
        StmtKind::Assign { .. } => "assign",
        StmtKind::If { .. } => "if",
        StmtKind::For { .. } => "for",
        StmtKind::Parfor { .. } => "parfor",
        StmtKind::While { .. } => "while",
        StmtKind::Break => "break",
        StmtKind::Continue => "continue",
        StmtKind::Return { .. } => "return",
        StmtKind::Expr { .. } => "expr",
        StmtKind::Alloc { .. } => "alloc",
        StmtKind::Free { .. } => "free",
        StmtKind::RefIncr { .. } => "refincr",
        StmtKind::RefDecr { .. } => "refdecr",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopKind {
    /// `for` and `while`.
    Sequential,
    Parfor,
}

/// What encloses a statement.
#[derive(Clone, Copy, Debug)]
struct Context {
    /// The loop that `break` and `continue` would act on.
    innermost_loop: Option<LoopKind>,
    /// Inside a parfor body at any depth: `return` is forbidden, atomics are allowed.
    in_parfor: bool,
    /// Inside a parfor body or an on_gpu block (named): random draws are forbidden.
    no_draws: Option<&'static str>,
    depth: usize,
}

impl Context {
    fn nested(self) -> Context {
        Context {
            depth: self.depth + 1,
            ..self
        }
    }
    fn loop_body(self, kind: LoopKind) -> Context {
        let no_draws = match kind {
            LoopKind::Parfor => self.no_draws.or(Some("a parfor body")),
            LoopKind::Sequential => self.no_draws,
        };
        Context {
            innermost_loop: Some(kind),
            in_parfor: self.in_parfor || kind == LoopKind::Parfor,
            no_draws,
            depth: self.depth + 1,
        }
    }
    /// The statements of a block, an on_gpu one or not.
    fn block(self, on_gpu: bool) -> Context {
        let no_draws = if on_gpu {
            self.no_draws.or(Some("an on_gpu block"))
        } else {
            self.no_draws
        };
        Context {
            no_draws,
            ..self.nested()
        }
    }
}

struct StmtChecker<'a> {
    function: &'a Function,
    exprs: ExprChecker<'a>,
}

impl StmtChecker<'_> {
    /// Checks a statement list; `parent` is the path of the enclosing statement.
    fn block(&self, stmts: &[Stmt], parent: Option<&str>, cx: Context) -> VrResult<()> {
        for (i, s) in stmts.iter().enumerate() {
            let path = match parent {
                None => (i + 1).to_string(),
                Some(p) => format!("{p}.{}", i + 1),
            };
            self.stmt(s, &path, cx)?;
        }
        Ok(())
    }

    fn stmt(&self, s: &Stmt, path: &str, cx: Context) -> VrResult<()> {
        let here = |msg: String| self.error(s, path, msg);
        if cx.depth > MAX_NESTING {
            return Err(here(format!(
                "statements nested more than {MAX_NESTING} deep"
            )));
        }
        let pos = Position::statement(cx.depth, cx.in_parfor, cx.no_draws);
        match &s.kind {
            StmtKind::Block(b) => self.block(&b.stmts, Some(path), cx.block(b.on_gpu)),
            StmtKind::Assign { targets, value } => self.assign(targets, value, pos).map_err(here),
            StmtKind::If { cond, then, els } => {
                self.condition("if", cond, pos).map_err(here)?;
                self.block(&then.stmts, Some(path), cx.nested())?;
                if let Some(els) = els {
                    self.block(&els.stmts, Some(&format!("{path}.else")), cx.nested())?;
                }
                Ok(())
            }
            StmtKind::For { vars, domain, body } => {
                self.loop_header(vars, domain, pos).map_err(here)?;
                self.block(&body.stmts, Some(path), cx.loop_body(LoopKind::Sequential))
            }
            StmtKind::Parfor { vars, domain, body } => {
                self.loop_header(vars, domain, pos).map_err(here)?;
                self.block(&body.stmts, Some(path), cx.loop_body(LoopKind::Parfor))
            }
            StmtKind::While { cond, body } => {
                self.condition("while", cond, pos).map_err(here)?;
                self.block(&body.stmts, Some(path), cx.loop_body(LoopKind::Sequential))
            }
            StmtKind::Break => match cx.innermost_loop {
                None => Err(here("break outside a loop".to_string())),
                Some(LoopKind::Parfor) => {
                    Err(here("break is not allowed in a parfor body".to_string()))
                }
                Some(LoopKind::Sequential) => Ok(()),
            },
            StmtKind::Continue => match cx.innermost_loop {
                None => Err(here("continue outside a loop".to_string())),
                Some(_) => Ok(()),
            },
            StmtKind::Return { values } => {
                if cx.in_parfor {
                    return Err(here("return is not allowed in a parfor body".to_string()));
                }
                self.returns(values, pos).map_err(here)
            }
            StmtKind::Expr { expr } => self.exprs.type_of(expr, pos).map(drop).map_err(here),
            StmtKind::Alloc { var, dims } => self.alloc(var, dims, pos).map_err(here),
            StmtKind::Free { var } | StmtKind::RefIncr { var } | StmtKind::RefDecr { var } => {
                self.exprs.var_type(var).map(drop).map_err(here)
            }
        }
    }

    /// `"f: stmt 3.2 [line 7] (assign): what is wrong"`.
    fn error(&self, s: &Stmt, path: &str, msg: String) -> VrError {
        let name = &self.function.name;
        let line = s.line.map(|l| format!(" [line {l}]")).unwrap_or_default();
        VrError::type_error(format!(
            "{name}: stmt {path}{line} ({}): {msg}",
            kind_name(&s.kind)
        ))
        .with_function(name)
        .with_line(s.line)
    }

    /// One target takes the value; several take the items of a tuple of as many values.
    fn assign(&self, targets: &[LValue], value: &Expr, pos: Position) -> Check<()> {
        let t = self.exprs.value_type(value, pos)?;
        match targets {
            [] => Err("assignment without a target".to_string()),
            [target] => self.store(target, &t, pos),
            several => match &t {
                Type::Tuple { items } if items.len() == several.len() => several
                    .iter()
                    .zip(items)
                    .try_for_each(|(target, item)| self.store(target, item, pos)),
                _ => Err(format!(
                    "assignment to {n} targets needs a tuple of {n} values, got {t}",
                    n = several.len()
                )),
            },
        }
    }

    /// Checks that a value of type `value` may be stored in `target`.
    fn store(&self, target: &LValue, value: &Type, pos: Position) -> Check<()> {
        match target {
            LValue::Var { name } => {
                let declared = self.exprs.var_type(name)?;
                if assignable(value, declared) {
                    Ok(())
                } else {
                    Err(format!("cannot assign {value} to {name}: {declared}"))
                }
            }
            LValue::Index {
                array,
                indices,
                flags,
            } => {
                let declared = self.exprs.var_type(array)?;
                let a = declared.as_array().ok_or_else(|| {
                    format!("cannot index {array}: {declared}, it is not an array")
                })?;
                let selected = self.exprs.selection(a, indices, *flags, pos)?;
                // A scalar of the element type fills every selected position; an array must
                // have the element type and the selection's rank.
                let fits = match (&selected, value) {
                    (_, Type::Scalar { elem }) => *elem == a.elem,
                    (Type::Array(s), Type::Array(v)) => v.elem == a.elem && v.ndims == s.ndims,
                    _ => false,
                };
                match (fits, &selected) {
                    (true, _) => Ok(()),
                    (false, Type::Array(_)) => Err(format!(
                        "cannot store {value} into a selection {selected} of {array}: {declared}"
                    )),
                    (false, _) => Err(format!(
                        "cannot store {value} into an element of {array}: {declared}"
                    )),
                }
            }
        }
    }

    fn condition(&self, what: &str, cond: &Expr, pos: Position) -> Check<()> {
        match self.exprs.value_type(cond, pos)? {
            Type::Scalar {
                elem: ScalarType::Bool,
            } => Ok(()),
            t => Err(format!("{what} condition must be a bool scalar, got {t}")),
        }
    }

    /// Loop variables are distinct integer locals, one per dimension of the domain (a
    /// range counts as a domain of one dimension).
    fn loop_header(&self, vars: &[String], domain: &Expr, pos: Position) -> Check<()> {
        if vars.is_empty() {
            return Err("a loop needs at least one loop variable".to_string());
        }
        let mut seen = HashSet::new();
        for v in vars {
            if !seen.insert(v.as_str()) {
                return Err(format!("loop variable {v} appears twice"));
            }
            if self.function.params.iter().any(|p| &p.name == v) {
                return Err(format!(
                    "loop variable {v} is a parameter; loop variables must be locals"
                ));
            }
            let t = self.exprs.var_type(v)?;
            if !matches!(t, Type::Scalar { elem } if elem.is_int()) {
                return Err(format!(
                    "loop variable {v} must be an integer local, it is {t}"
                ));
            }
        }
        let t = self.exprs.value_type(domain, pos)?;
        let dims = match t {
            Type::Range => 1,
            Type::Domain { ndims } => u64::from(ndims),
            _ => return Err(format!("a loop needs a range or a domain, got {t}")),
        };
        if dims != vars.len() as u64 {
            return Err(format!(
                "a loop over {t} needs {dims} loop variable{}, got {}",
                if dims == 1 { "" } else { "s" },
                vars.len()
            ));
        }
        Ok(())
    }

    /// `return` gives exactly the function's results.
    fn returns(&self, values: &[Expr], pos: Position) -> Check<()> {
        let results = &self.function.results;
        if values.len() != results.len() {
            return Err(format!(
                "{} returns {} value{}, got {}",
                self.function.name,
                results.len(),
                if results.len() == 1 { "" } else { "s" },
                values.len()
            ));
        }
        for (i, (value, result)) in values.iter().zip(results).enumerate() {
            let t = self.exprs.value_type(value, pos)?;
            if !assignable(&t, result) {
                return Err(format!("cannot return {t} as result {}: {result}", i + 1));
            }
        }
        Ok(())
    }

    /// `(alloc x d...)`: x is an array variable, one integer scalar per dimension.
    fn alloc(&self, var: &str, dims: &[Expr], pos: Position) -> Check<()> {
        let declared = self.exprs.var_type(var)?;
        let a = declared
            .as_array()
            .ok_or_else(|| format!("alloc needs an array variable, {var} is {declared}"))?;
        if dims.len() as u64 != u64::from(a.ndims) {
            return Err(format!(
                "alloc of {var}: {a} needs {} dims, got {}",
                a.ndims,
                dims.len()
            ));
        }
        for (i, d) in dims.iter().enumerate() {
            self.exprs
                .integer_scalar(&format!("dim {}", i + 1), d, pos)?;
        }
        Ok(())
    }
}
