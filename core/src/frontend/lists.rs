//! Lists (R `list`, data frames) in compiled code. A list is no VRIR type: the engine
//! keeps a list's shape (names, nesting) at compile time and makes each of its scalar
//! and array elements a variable of its own, named `list$name` (`list$[[k]]` for an
//! element without a name of its own; `vrir_name` makes it a VRIR name). A list argument
//! is one VRIR parameter per element, in `ListTy::leaves` order, and so is a list a
//! function returns one VRIR result per element; reading `x$name`, `x[["name"]]` or
//! `x[[k]]` (a constant `k`) is reading that variable, so compiled lists cost nothing
//! at run time. Element types join like any variable's; names and nesting are fixed
//! where the list is made (a list literal, an argument), and a list variable keeps one
//! shape. Data frames are lists of columns, read-only.
//!
//! Globals (free variables the host reads from the function's environment at each
//! call) live here too: every specialization takes them as hidden trailing parameters
//! `@name` (a list global as its elements), and passes them on to the functions it calls.

use super::hir::{BinOp, Expr, ExprKind, Line};
use super::lower::{LErr, LResult, Lowered, Lowerer};
use super::rules::Marker;
use super::types::{join, AnyTy, Field, ListTy, Ty};
use crate::runtime::error::ErrorKind;
use crate::vrir::{self, Block, LValue, ScalarType, Stmt, StmtKind};
use std::collections::HashSet;

/// The most elements a `for` over a list compiles one body each for (elements of
/// different kinds, or names): each is the loop's body again.
const MAX_CHOSEN_TURNS: usize = 64;

/// The variable holding element `path` of the list variable `list`.
pub fn leaf_name(list: &str, path: &[String]) -> String {
    let mut s = list.to_string();
    for key in path {
        s.push('$');
        s.push_str(key);
    }
    s
}

/// The engine's variable for the global `name`: a name no source variable can have.
pub fn global_var(name: &str) -> String {
    format!("@{name}")
}

/// Is `name`, or a list it is an element of, in `set` (of written or rebound names)?
pub fn is_marked(set: &HashSet<String>, name: &str) -> bool {
    if set.contains(name) {
        return true;
    }
    let mut end = name.len();
    while let Some(k) = name[..end].rfind('$') {
        if set.contains(&name[..k]) {
            return true;
        }
        end = k;
    }
    false
}

/// The variable an assignment target names, as far as syntax tells: `x`, `x$a`,
/// `x[["a"]]` are `x`, `x$a`, `x$a`; `x[[2]]` and `x[[2]]$a` (a position) are `x`, the
/// whole list, which over-approximates (a copy too many, never one too few).
pub fn syntactic_leaf(e: &Expr) -> Option<String> {
    leaf_path(e).map(|(name, _)| name)
}

/// `syntactic_leaf`, and whether it is exact (no position on the way).
fn leaf_path(e: &Expr) -> Option<(String, bool)> {
    match &e.kind {
        ExprKind::Var(n) => Some((n.clone(), true)),
        ExprKind::Field { target, name } => match leaf_path(target)? {
            (base, true) => Some((format!("{base}${name}"), true)),
            inexact => Some(inexact),
        },
        ExprKind::Index { target, indices, double: true } => match (leaf_path(target)?, indices.as_slice()) {
            ((base, true), [Some(Expr { kind: ExprKind::Str(s), .. })]) => Some((format!("{base}${s}"), true)),
            ((base, _), _) => Some((base, false)),
        },
        ExprKind::Index { target, .. } => leaf_path(target),
        _ => None,
    }
}

/// A lowered list: its type (element types as lowered) and one value per scalar or
/// array element, in `ListTy::leaves` order.
#[derive(Clone, Debug)]
pub struct ListVal {
    pub ty: ListTy,
    pub leaves: Vec<Lowered>,
}

/// A lowered expression: a scalar or array, or a list.
#[derive(Clone, Debug)]
pub enum Val {
    One(Lowered),
    List(ListVal),
}

impl ListVal {
    /// Element `k` (0-based): a value, a nested list, or what an unreadable element is.
    pub fn element(&self, k: usize) -> Result<Val, String> {
        let mut offset = 0;
        for f in &self.ty.fields[..k] {
            offset += count_leaves(&f.ty);
        }
        match &self.ty.fields[k].ty {
            AnyTy::Value(_) => Ok(Val::One(self.leaves[offset].clone())),
            AnyTy::List(l) => {
                let n = count_leaves(&self.ty.fields[k].ty);
                Ok(Val::List(ListVal {
                    ty: l.clone(),
                    leaves: self.leaves[offset..offset + n].to_vec(),
                }))
            }
            AnyTy::Opaque(what) => Err(what.clone()),
        }
    }
}

fn count_leaves(t: &AnyTy) -> usize {
    match t {
        AnyTy::Value(_) => 1,
        AnyTy::List(l) => l.fields.iter().map(|f| count_leaves(&f.ty)).sum(),
        AnyTy::Opaque(_) => 0,
    }
}

/// An assignable place: a variable holding a scalar or array, or a list variable.
pub enum Place {
    Value(String),
    List(String, ListTy),
}

/// How a list element is selected: by name or by position (1-based).
enum Key {
    Name(String),
    Pos(i64),
}

/// A short spelling of an expression for diagnostics (`data$x`, `l[[2]]`, `f(...)`).
pub fn describe_expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var(n) => n.clone(),
        ExprKind::Field { target, name } => format!("{}${name}", describe_expr(target)),
        ExprKind::Index { target, indices, double } => {
            let inner = match indices.as_slice() {
                [Some(Expr { kind: ExprKind::Str(s), .. })] => format!("\"{s}\""),
                [Some(Expr { kind: ExprKind::Double(v), .. })] => format!("{v}"),
                [Some(Expr { kind: ExprKind::Int(v), .. })] => format!("{v}L"),
                _ => "...".into(),
            };
            if *double {
                format!("{}[[{inner}]]", describe_expr(target))
            } else {
                format!("{}[{inner}]", describe_expr(target))
            }
        }
        ExprKind::Call { func, .. } => format!("{func}(...)"),
        _ => "the value".into(),
    }
}

impl Lowerer<'_> {
    /// The engine variable a source name reads: a local, parameter or list of the
    /// function, else the global of that name; None when it is neither.
    pub(super) fn resolve(&self, name: &str) -> Option<String> {
        let known = |n: &str| {
            self.vars.contains_key(n)
                || self.recorded_contains(n)
                || self.lists.contains_key(n)
                || self.recorded_lists.contains_key(n)
                || self.opaque.contains_key(n)
        };
        if known(name) {
            return Some(name.to_string());
        }
        let g = global_var(name);
        known(&g).then_some(g)
    }

    /// Might `e` be a list (so that `e[...]` must be lowered through `any_expr`)?
    pub(super) fn may_be_list(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(n) => self.resolve(n).is_some_and(|v| self.is_list_var(&v)),
            ExprKind::Field { .. } | ExprKind::Index { double: true, .. } => true,
            ExprKind::Call { func, .. } => self.is_user_function(func) || self.prog.lang.marker(func) == Some(Marker::List),
            _ => false,
        }
    }

    /// Is the engine variable `var` a list?
    pub(super) fn is_list_var(&self, var: &str) -> bool {
        self.lists.contains_key(var) || self.recorded_lists.contains_key(var)
    }

    /// Refuse a function two of whose variables (a list's element `a$b_c` and `a_b$c`,
    /// say) would share one VRIR name: never one storage for two values.
    pub(super) fn check_distinct_vrir_names(&self) -> LResult<()> {
        let lang = self.prog.lang;
        let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
        for name in self.vars.keys() {
            if let Some(other) = seen.insert(lang.vrir_name(name), name) {
                return Err(self.unsupported(
                    &format!("variables `{other}` and `{name}`"),
                    self.def_line(),
                    "their compiled names coincide; rename one of them",
                ));
            }
        }
        Ok(())
    }

    /// The diagnostic for a list where a scalar or array is needed.
    pub(super) fn list_as_value(&self, what: &str, line: Line) -> LErr {
        self.unsupported(
            &format!("list `{what}` used as a value"),
            line,
            "compiled code reads a list's elements (`x$name`, `x[[\"name\"]]`, `x[[k]]`), its `length`, loops over it, or passes, assigns and returns the list whole",
        )
    }

    /// The values the globals pass to a called function (after its arguments).
    pub(super) fn global_args(&self) -> Vec<vrir::Expr> {
        let lang = self.prog.lang;
        let mut out = Vec::new();
        for (g, t) in &self.prog.globals {
            let var = global_var(g);
            match t {
                AnyTy::Value(_) => out.push(vrir::Expr::var(lang.vrir_name(&var))),
                AnyTy::List(l) => out.extend(l.leaves().iter().map(|(path, _)| vrir::Expr::var(lang.vrir_name(&leaf_name(&var, path))))),
                AnyTy::Opaque(_) => {}
            }
        }
        out
    }

    /// The names of the list a call's function returns (None: it returns no list).
    pub(super) fn list_result_of(&self, call: &vrir::Expr) -> Option<ListTy> {
        let vrir::Expr::Call { func, .. } = call else { return None };
        self.prog.specs.iter().find(|s| s.vrir_name == *func).and_then(|s| s.ret_list.clone())
    }

    /// Note what one `return` leaves with: a list of these names, or (None) scalars and
    /// arrays. Every return of a function must agree (the results are its elements).
    pub(super) fn note_return_list(&mut self, list: Option<&ListTy>, line: Line) -> LResult<()> {
        match &self.ret_list {
            None => {
                self.ret_list = Some(list.cloned());
                Ok(())
            }
            Some(prev) => {
                let agree = match (prev, list) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.same_shape(b),
                    _ => false,
                };
                if agree {
                    return Ok(());
                }
                let show = |l: Option<&ListTy>| l.map_or("a value that is not a list".to_string(), |l| format!("a {l}"));
                Err(self.diag(
                    ErrorKind::Unsupported,
                    "return value",
                    line,
                    &format!(
                        "the function returns {} elsewhere and {} here; a compiled function returns one kind of list",
                        show(prev.as_ref()),
                        show(list)
                    ),
                ))
            }
        }
    }

    /// Leave the function with a list: its elements are the results, its names known
    /// to the host (`Spec::ret_list`).
    pub(super) fn return_list(&mut self, l: ListVal, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        if l.ty.frame {
            return Err(self.unsupported(
                "a data frame as the function's value",
                line,
                "compiled functions return lists, vectors and arrays",
            ));
        }
        if let Some(what) = opaque_in(&l.ty) {
            return Err(self.unsupported(
                "a list holding a value compiled code cannot read as the function's value",
                line,
                &format!("an element is {what}"),
            ));
        }
        self.note_return_list(Some(&l.ty), line)?;
        self.return_values(l.leaves, line, out)
    }

    /// The list type of a list variable as this round knows it (NotYet while its
    /// assignments have not been seen).
    fn list_type(&self, var: &str) -> LResult<ListTy> {
        match self
            .lists
            .get(var)
            .or_else(|| if self.final_pass() { None } else { self.recorded_lists.get(var) })
        {
            Some(l) => Ok(l.clone()),
            None => Err(LErr::NotYet),
        }
    }

    /// The list variable `var` read whole: its elements' current types and values.
    fn read_list(&mut self, var: &str, line: Line) -> LResult<ListVal> {
        let lt = self.list_type(var)?;
        let lang = self.prog.lang;
        let mut leaves = Vec::new();
        let mut types = Vec::new();
        for (path, _) in lt.leaves() {
            let leaf = leaf_name(var, &path);
            let t = match self.vars.get(&leaf) {
                Some(t) => *t,
                None if self.final_pass() => {
                    return Err(self.diag(
                        ErrorKind::Type,
                        &format!("element `{leaf}`"),
                        line,
                        "its type is not known (an element assigned only after it is read?)",
                    ));
                }
                None => return Err(LErr::NotYet),
            };
            types.push(t);
            leaves.push(Lowered::new(vrir::Expr::var(lang.vrir_name(&leaf)), t));
        }
        Ok(ListVal {
            ty: lt.with_leaves(&mut types.into_iter()),
            leaves,
        })
    }

    /// Lower `e`, which may be a list: a list variable, a list literal (`list(...)`), or
    /// an element of a list that is itself a list; anything else as `expr` does.
    pub fn any_expr(&mut self, e: &Expr) -> LResult<Val> {
        let line = e.line;
        match &e.kind {
            ExprKind::Var(name) => {
                if let Some(var) = self.resolve(name).filter(|v| self.is_list_var(v)) {
                    return Ok(Val::List(self.read_list(&var, line)?));
                }
                Ok(Val::One(self.expr(e)?))
            }
            ExprKind::Call { func, args } if !self.is_user_function(func) && self.prog.lang.marker(func) == Some(Marker::List) => {
                let mut fields = Vec::new();
                let mut leaves = Vec::new();
                for a in args {
                    let ty = match self.any_expr(&a.value)? {
                        Val::One(v) => {
                            let t = v.ty;
                            leaves.push(v);
                            AnyTy::Value(t)
                        }
                        Val::List(l) => {
                            leaves.extend(l.leaves);
                            AnyTy::List(l.ty)
                        }
                    };
                    fields.push(Field { name: a.name.clone(), ty });
                }
                Ok(Val::List(ListVal {
                    ty: ListTy { frame: false, fields },
                    leaves,
                }))
            }
            ExprKind::Call { func, args } if self.is_user_function(func) => {
                let (call, ret) = self.user_call(func, args, line)?;
                if let Some(lt) = self.list_result_of(&call) {
                    // One temporary per element, assigned from the call's results.
                    if lt.leaves().len() != ret.len() {
                        return Err(LErr::Fail(crate::runtime::error::VrError::new(
                            ErrorKind::Internal,
                            format!("`{func}` returns {} values for a list of {}", ret.len(), lt.leaves().len()),
                        )));
                    }
                    let temps: Vec<String> = ret.iter().map(|t| self.temp(&t.vrir(self.layout()))).collect();
                    self.emit(StmtKind::Assign {
                        targets: temps.iter().map(|t| LValue::Var { name: t.clone() }).collect(),
                        value: call,
                    });
                    let leaves = temps.into_iter().zip(&ret).map(|(t, ty)| Lowered::new(vrir::Expr::var(t), *ty)).collect();
                    return Ok(Val::List(ListVal {
                        ty: lt.with_leaves(&mut ret.iter().copied()),
                        leaves,
                    }));
                }
                match ret.as_slice() {
                    [t] => Ok(Val::One(Lowered::new(call, *t))),
                    [] => Err(self.unsupported(&format!("value of `{func}(...)`"), line, "the function returns NULL")),
                    ts => Err(self.unsupported(&format!("value of `{func}(...)`"), line, &format!("the function returns {} values", ts.len()))),
                }
            }
            ExprKind::Field { target, name } => {
                if let Some(v) = self.computed_then_key(target, &Key::Name(name.clone()), line)? {
                    return Ok(v);
                }
                let t = self.any_expr(target)?;
                self.select(t, &Key::Name(name.clone()), target, line)
            }
            ExprKind::Index { target, indices, double: true } if matches!(indices.as_slice(), [Some(ix)] if !self.is_computed_key(&ix.kind)) => {
                let key = self.const_key(&indices[0].as_ref().expect("one index").kind).expect("a constant key");
                if let Some(v) = self.computed_then_key(target, &key, line)? {
                    return Ok(v);
                }
                self.index_of_any(e)
            }
            _ => self.index_of_any(e),
        }
    }

    /// `any_expr` of an index expression (`x[...]`, `x[[...]]`) or anything else.
    fn index_of_any(&mut self, e: &Expr) -> LResult<Val> {
        let line = e.line;
        match &e.kind {
            ExprKind::Index { target, .. } if !self.may_be_list(target) => Ok(Val::One(self.expr(e)?)),
            ExprKind::Index { target, indices, double } => match self.any_expr(target)? {
                Val::One(t) => Ok(Val::One(self.index_read(target, t, indices, *double, line)?)),
                Val::List(l) if l.ty.frame && !*double && indices.len() == 2 => self.frame_cell(l, indices, target, e, line),
                Val::List(l) => {
                    let [Some(ix)] = indices.as_slice() else {
                        return Err(self.unsupported(
                            &format!("`{}` of a list", describe_expr(e)),
                            line,
                            "select one element, `x[[\"name\"]]` or `x[[k]]`",
                        ));
                    };
                    if !*double {
                        return Err(self.unsupported(
                            &format!("`{}` of a list", describe_expr(e)),
                            line,
                            "`[` on a list gives a list; compiled code selects elements with `[[`",
                        ));
                    }
                    if self.const_key(&ix.kind).is_none() && !matches!(ix.kind, ExprKind::Str(_)) {
                        return self.select_computed(l, ix, target, line);
                    }
                    let key = self.key(&ix.kind, line)?;
                    self.select(Val::List(l), &key, target, line)
                }
            },
            _ => Ok(Val::One(self.expr(e)?)),
        }
    }

    /// `df[i, "x"]`, `df[i, 2]`, `df[, "x"]`: the rows `i` of one column chosen by a
    /// constant (R's `[.data.frame` with one column drops to the column's vector).
    fn frame_cell(&mut self, l: ListVal, indices: &[Option<Expr>], frame: &Expr, e: &Expr, line: Line) -> LResult<Val> {
        let col = match &indices[1] {
            Some(c) if !self.is_computed_key(&c.kind) => self.const_key(&c.kind).expect("a constant key"),
            _ => {
                return Err(self.unsupported(
                    &format!("`{}` of a data frame", describe_expr(e)),
                    line,
                    "compiled code selects one column by a constant name or position (`df[i, \"x\"]`, `df[i, 2]`); other selections give data frames",
                ))
            }
        };
        if let Key::Name(n) = &col {
            if l.ty.position(n).is_none() {
                // `[.data.frame` matches column names exactly: R's "undefined columns selected".
                return Err(self.unsupported(&format!("`{}`", describe_expr(e)), line, &format!("the data frame has no column `{n}` (R: undefined columns selected)")));
            }
        }
        let Val::One(column) = self.select(Val::List(l), &col, frame, line)? else {
            return Err(self.unsupported(&format!("`{}`", describe_expr(e)), line, "the column is a list"));
        };
        match &indices[0] {
            None => Ok(Val::One(column)),
            Some(rows) => Ok(Val::One(self.index_read(frame, column, std::slice::from_ref(&Some(rows.clone())), false, line)?)),
        }
    }

    /// A constant selecting a list element: a string, or a whole number (a literal or
    /// a constant of the source).
    fn key(&mut self, ix: &ExprKind, line: Line) -> LResult<Key> {
        self.const_key(ix).ok_or_else(|| {
            self.unsupported(
                "a list element selected by a computed index",
                line,
                "compiled code selects list elements by a name or a constant position (`x[[\"a\"]]`, `x[[2]]`), or by a computed position among elements of one kind (`x[[i]]`, `x[[i]]$a`)",
            )
        })
    }

    fn const_key(&self, ix: &ExprKind) -> Option<Key> {
        match ix {
            ExprKind::Str(s) => Some(Key::Name(s.clone())),
            ExprKind::Double(v) if v.fract() == 0.0 => Some(Key::Pos(*v as i64)),
            ExprKind::Int(v) => Some(Key::Pos(*v as i64)),
            ExprKind::Var(n) if self.resolve(n).is_none() && self.prog.constants.contains_key(n) => self.const_key(&self.prog.constants[n].kind),
            _ => None,
        }
    }

    /// A `for` loop over a list, as a loop over its positions with a hidden counter:
    ///
    /// - `for (v in l)` over elements that are all scalars or arrays of one rank is
    ///   `for (k in 1:n) { v <- l[[k]]; body }` (a computed position, chosen at run time);
    /// - `for (v in l)` over other elements (lists, say: records of one shape) chooses
    ///   the turn's body by `k`, each with its element at a constant position:
    ///   `if (k == 1) { v <- l[[1]]; body } else if (k == 2) ...`;
    /// - `for (nm in names(l))` chooses the same way, with `nm` in each body the
    ///   element's name as a constant (`l[[nm]]` is then `l[["a"]]`), so the names,
    ///   strings, never exist at run time.
    ///
    /// `break` and `next` keep their meaning: the loop over positions is a real loop.
    /// Returns the hidden counter and, unless the list is empty (no turns), the count and
    /// the new body; None when `seq` is no list.
    #[allow(clippy::type_complexity)]
    pub(super) fn list_loop(&mut self, var: &str, seq: &Expr, body: &Expr, line: Line) -> LResult<Option<(String, Option<(i32, Expr)>)>> {
        let (list_expr, by_name) = match &seq.kind {
            ExprKind::Call { func, args } if !self.is_user_function(func) && self.prog.lang.marker(func) == Some(Marker::Names) => match args.as_slice() {
                [a] if a.name.is_none() => (&a.value, true),
                _ => return Err(self.unsupported(&format!("`{func}(...)`"), line, "it takes one list")),
            },
            _ => (seq, false),
        };
        let ExprKind::Var(name) = &list_expr.kind else {
            if by_name {
                return Err(self.unsupported(
                    "`for` over the names of an expression",
                    line,
                    "compiled code loops over the names of a list variable (`for (nm in names(l))`)",
                ));
            }
            return Ok(None);
        };
        let Some(list) = self.resolve(name).filter(|v| self.is_list_var(v)) else {
            if by_name {
                if !self.final_pass() && self.resolve(name).is_none() {
                    return Err(LErr::NotYet);
                }
                return Err(self.unsupported(
                    &format!("`for` over `names({name})`"),
                    line,
                    &format!("`{name}` is not a list; compiled code has no strings, and loops over the names of a list only"),
                ));
            }
            return Ok(None);
        };
        let lt = self.list_type(&list)?;
        let n = lt.fields.len();
        let k = format!("@for_{var}_{line}");
        if n == 0 {
            return Ok(Some((k, None)));
        }
        let counter = || Expr::new(ExprKind::Var(k.clone()), line);
        let of_one_kind = !by_name && {
            let mut joined: Option<Ty> = None;
            lt.fields.iter().all(|f| match &f.ty {
                AnyTy::Value(t) => {
                    joined = match joined {
                        None => Some(*t),
                        Some(p) => join(p, *t),
                    };
                    joined.is_some()
                }
                _ => false,
            })
        };
        let element = |pos: Expr| Expr::new(ExprKind::Index { target: Box::new(list_expr.clone()), indices: vec![Some(pos)], double: true }, line);
        let assign_var = |value: Expr| Expr::new(ExprKind::Assign { target: Box::new(Expr::new(ExprKind::Var(var.to_string()), line)), value: Box::new(value) }, line);
        if of_one_kind {
            let new_body = Expr::new(ExprKind::Block(vec![assign_var(element(counter())), body.clone()]), body.line);
            return Ok(Some((k, Some((n as i32, new_body)))));
        }
        if n > MAX_CHOSEN_TURNS {
            return Err(self.unsupported(
                &format!("`for` over the {n} elements of `{name}`"),
                line,
                &format!("elements of different kinds (or names) compile as one body per element, up to {MAX_CHOSEN_TURNS}"),
            ));
        }
        let mut turns = Vec::with_capacity(n);
        for (pos, f) in lt.fields.iter().enumerate() {
            let turn = if by_name {
                let nm = match f.name.as_deref() {
                    Some(nm) if !nm.is_empty() => nm.to_string(),
                    _ => {
                        return Err(self.unsupported(
                            &format!("`for` over `names({name})`"),
                            line,
                            &format!("element {} has no name (R gives \"\" for it, or NULL for a list without names)", pos + 1),
                        ))
                    }
                };
                let mut b = body.clone();
                if !replace_var(&mut b, var, &ExprKind::Str(nm)) {
                    return Err(self.unsupported(
                        &format!("`for ({var} in names({name}))`"),
                        line,
                        &format!("the loop assigns `{var}` or gives it to a function defined inside; compiled code has the names only as constants"),
                    ));
                }
                b
            } else {
                Expr::new(ExprKind::Block(vec![assign_var(element(Expr::new(ExprKind::Int(pos as i32 + 1), line))), body.clone()]), body.line)
            };
            turns.push(turn);
        }
        // `if (k == 1) turn1 else if (k == 2) turn2 ... else turn_n`.
        let mut chain = turns.pop().expect("a list with elements");
        for (pos, turn) in turns.into_iter().enumerate().rev() {
            let cond = Expr::new(ExprKind::Binary(BinOp::Eq, Box::new(counter()), Box::new(Expr::new(ExprKind::Int(pos as i32 + 1), line))), line);
            chain = Expr::new(ExprKind::If { cond: Box::new(cond), then: Box::new(turn), els: Some(Box::new(chain)) }, line);
        }
        Ok(Some((k, Some((n as i32, chain)))))
    }

    /// Is `ix` a position known only at run time (not a name or constant)?
    pub(super) fn is_computed_key(&self, ix: &ExprKind) -> bool {
        self.const_key(ix).is_none() && !matches!(ix, ExprKind::Str(_))
    }

    /// `l[[i]] <- value` for a position `i` known at run time: the list's elements must
    /// all be scalars or arrays of the value's rank; each may receive the value, so each
    /// takes the joined type.
    pub(super) fn assign_computed(&mut self, list: &str, lt: &ListTy, ix: &Expr, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let what = format!("`{list}[[...]] <- ...` with a computed position");
        if lt.frame {
            return Err(self.unsupported(
                &format!("assignment into the data frame `{list}`"),
                line,
                "data frames are read-only in compiled code; copy the column into a variable first",
            ));
        }
        let mut leaves = Vec::with_capacity(lt.fields.len());
        for (k, f) in lt.fields.iter().enumerate() {
            match &f.ty {
                AnyTy::Value(t) => leaves.push((leaf_name(list, &[lt.key(k)]), *t)),
                _ => {
                    return Err(self.unsupported(
                        &what,
                        line,
                        "compiled code assigns by a computed position only into lists whose elements are all scalars or arrays (or `l[[i]]$x <- v` into lists of one shape)",
                    ))
                }
            }
        }
        self.assign_chosen(&what, leaves, ix, value, line, out)
    }

    /// `l[[i]]$name <- value` (or `l[[i]][["name"]] <- value`) for a position `i` known
    /// at run time, where `l` is a list variable holding lists. None when `target` is no
    /// such `l[[i]]`.
    pub(super) fn assign_computed_then_key(&mut self, target: &Expr, key_ix: &ExprKind, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<Option<()>> {
        let ExprKind::Index { target: inner, indices, double: true } = &target.kind else { return Ok(None) };
        let [Some(ix)] = indices.as_slice() else { return Ok(None) };
        if !self.is_computed_key(&ix.kind) || !is_list_path(inner) {
            return Ok(None);
        }
        let Place::List(var, lt) = self.place(inner, line)? else { return Ok(None) };
        if lt.fields.is_empty() || !lt.fields.iter().all(|f| matches!(f.ty, AnyTy::List(_))) {
            return Ok(None);
        }
        let key = self.key(key_ix, line)?;
        let shown = match &key {
            Key::Name(n) => format!("${n}"),
            Key::Pos(k) => format!("[[{k}]]"),
        };
        let what = format!("`{var}[[...]]{shown} <- ...` with a computed position");
        let mut leaves = Vec::with_capacity(lt.fields.len());
        for (k, f) in lt.fields.iter().enumerate() {
            let AnyTy::List(sub) = &f.ty else { unreachable!("checked: every element is a list") };
            if sub.frame {
                return Err(self.unsupported(&what, line, "data frames are read-only in compiled code"));
            }
            let pos = self.position(sub, &key, &format!("{var}[[{}]]", k + 1), line)?;
            match &sub.fields[pos].ty {
                AnyTy::Value(t) => leaves.push((leaf_name(&var, &[lt.key(k), sub.key(pos)]), *t)),
                _ => return Err(self.unsupported(&what, line, "each element it selects must be a scalar or an array")),
            }
        }
        self.assign_chosen(&what, leaves, ix, value, line, out).map(Some)
    }

    /// Store `value` into the one of `leaves` (variables holding scalars or arrays of
    /// the value's rank) that the 1-based position `ix`, known at run time, chooses;
    /// each may receive the value, so each takes the joined type.
    fn assign_chosen(&mut self, what: &str, leaves: Vec<(String, Ty)>, ix: &Expr, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let refuse = |lw: &Self, why: &str| lw.unsupported(what, line, why);
        let v = match self.any_expr(value)? {
            Val::One(v) => v,
            Val::List(_) => return Err(refuse(self, "a computed position receives a scalar or an array, not a list")),
        };
        for (_, t) in &leaves {
            if t.rank != v.ty.rank {
                return Err(refuse(
                    self,
                    &format!("the list holds a {t} and the value is a {}; every element must have the value's rank", v.ty),
                ));
            }
        }
        if leaves.is_empty() {
            return Err(refuse(self, "the list is empty (R would grow it)"));
        }
        let i = self.expr(ix)?;
        if i.ty.rank != 0 {
            return Err(refuse(self, "the position must be a single number"));
        }
        let int = if i.ty.elem == ScalarType::I32 { ScalarType::I32 } else { ScalarType::I64 };
        let i = self.prog.lang.index_value(self, i, line)?;
        let i = self.cast(Lowered::new(i, Ty::scalar(int)), ScalarType::I64);
        let i = self.hoist(i);
        let n = leaves.len() as i64;
        self.raise_if(
            vrir::Expr::binary(vrir::BinOp::Lt, i.expr.clone(), vrir::Expr::i64(1)),
            "list_position_below_one",
        );
        // R grows the list past its end: compiled lists keep their length.
        self.raise_if(vrir::Expr::binary(vrir::BinOp::Gt, i.expr.clone(), vrir::Expr::i64(n)), "list_grows");
        let v = if matches!(v.expr, vrir::Expr::Var { .. } | vrir::Expr::Const { .. }) {
            v
        } else {
            self.hoist_copy(v)
        };
        out.append(self.pre_mut());
        for (k, (leaf, _)) in leaves.iter().enumerate() {
            let mut then = Vec::new();
            self.assign_var(leaf, v.clone(), line, &mut then)?;
            let cond = vrir::Expr::binary(vrir::BinOp::Eq, i.expr.clone(), vrir::Expr::i64(k as i64 + 1));
            out.push(Stmt {
                kind: StmtKind::If {
                    cond,
                    then: Block { on_gpu: false, stmts: then },
                    els: None,
                },
                line: Some(line),
            });
        }
        Ok(())
    }

    /// `l[[i]]` for a position `i` known at run time: the elements must all be scalars
    /// or arrays of one rank (the result has their joined type).
    fn select_computed(&mut self, l: ListVal, ix: &Expr, base: &Expr, line: Line) -> LResult<Val> {
        let what = format!("`{}[[...]]` with a computed position", describe_expr(base));
        let mut values = Vec::with_capacity(l.ty.fields.len());
        for k in 0..l.ty.fields.len() {
            match (&l.ty.fields[k].ty, l.element(k)) {
                (AnyTy::Value(_), Ok(Val::One(v))) => values.push(v),
                _ => {
                    return Err(self.unsupported(
                        &what,
                        line,
                        "compiled code selects by a computed position only among elements that are all scalars or arrays, or lists of one shape (`l[[i]]$x`); this list holds a list or a value it cannot read",
                    ))
                }
            }
        }
        self.choose_computed(values, ix, &what, line)
    }

    /// `l[[i]]$name` (or `l[[i]][["name"]]`, `l[[i]][[2]]`) for a position `i` known at
    /// run time, where `l` is a list of lists: the element `name` of each must be a
    /// scalar or array, all of one rank; `i` chooses among them. None when `target` is
    /// no such `l[[i]]` (the caller lowers it as usual).
    fn computed_then_key(&mut self, target: &Expr, key: &Key, line: Line) -> LResult<Option<Val>> {
        let ExprKind::Index { target: inner, indices, double: true } = &target.kind else { return Ok(None) };
        let [Some(ix)] = indices.as_slice() else { return Ok(None) };
        if !self.is_computed_key(&ix.kind) || !is_list_path(inner) || !self.may_be_list(inner) {
            return Ok(None);
        }
        // A path of variables and constant keys: lowering it only reads.
        let Val::List(l) = self.any_expr(inner)? else { return Ok(None) };
        if l.ty.fields.is_empty() || !l.ty.fields.iter().all(|f| matches!(f.ty, AnyTy::List(_))) {
            return Ok(None);
        }
        let shown = match key {
            Key::Name(n) => format!("${n}"),
            Key::Pos(k) => format!("[[{k}]]"),
        };
        let what = format!("`{}[[...]]{shown}` with a computed position", describe_expr(inner));
        let mut values = Vec::with_capacity(l.ty.fields.len());
        for k in 0..l.ty.fields.len() {
            let Ok(Val::List(elem)) = l.element(k) else { unreachable!("checked: every element is a list") };
            let pos = self.position(&elem.ty, key, &format!("{}[[{}]]", describe_expr(inner), k + 1), line)?;
            match elem.element(pos) {
                Ok(Val::One(v)) => values.push(v),
                Ok(Val::List(_)) => return Err(self.unsupported(&what, line, "each element it selects is a list; a computed position chooses among scalars or arrays")),
                Err(desc) => return Err(self.unsupported(&what, line, &format!("an element it selects is {desc}"))),
            }
        }
        self.choose_computed(values, ix, &what, line).map(Some)
    }

    /// One of `values` (all scalars or arrays of one rank; the result has their joined
    /// type), chosen by the 1-based position `ix` known at run time by comparing it with
    /// each position; a position outside `1..=values.len()` raises.
    fn choose_computed(&mut self, values: Vec<Lowered>, ix: &Expr, what: &str, line: Line) -> LResult<Val> {
        let refuse = |lw: &Self, why: &str| lw.unsupported(what, line, why);
        let mut joined: Option<Ty> = None;
        for v in &values {
            let t = v.ty;
            joined = match joined {
                None => Some(t),
                Some(p) => match join(p, t) {
                    Some(j) => Some(j),
                    None => {
                        return Err(refuse(
                            self,
                            &format!("its elements are a {p} and a {t}; a computed position selects among elements of one rank"),
                        ))
                    }
                },
            };
        }
        let Some(ty) = joined else { return Err(refuse(self, "the list is empty")) };
        let i = self.expr(ix)?;
        if i.ty.rank != 0 {
            return Err(refuse(self, "the position must be a single number"));
        }
        let int = if i.ty.elem == ScalarType::I32 { ScalarType::I32 } else { ScalarType::I64 };
        let i = self.prog.lang.index_value(self, i, line)?;
        let i = self.cast(Lowered::new(i, Ty::scalar(int)), ScalarType::I64);
        let i = self.hoist(i);
        let n = values.len() as i64;
        self.raise_if(
            vrir::Expr::binary(vrir::BinOp::Lt, i.expr.clone(), vrir::Expr::i64(1)),
            "list_position_below_one",
        );
        self.raise_if(
            vrir::Expr::binary(vrir::BinOp::Gt, i.expr.clone(), vrir::Expr::i64(n)),
            "list_subscript_out_of_bounds",
        );
        let t = self.temp(&ty.vrir(self.layout()));
        let set = |lw: &Self, v: Lowered| Stmt {
            kind: StmtKind::Assign {
                targets: vec![LValue::Var { name: t.clone() }],
                value: lw.cast(v, ty.elem).expr,
            },
            line: Some(line),
        };
        let mut leaves = values.into_iter().rev();
        let mut chain = vec![set(self, leaves.next().expect("a non-empty list"))];
        for (k, v) in leaves.enumerate() {
            let pos = n - 1 - k as i64;
            let cond = vrir::Expr::binary(vrir::BinOp::Eq, i.expr.clone(), vrir::Expr::i64(pos));
            chain = vec![Stmt {
                kind: StmtKind::If {
                    cond,
                    then: Block {
                        on_gpu: false,
                        stmts: vec![set(self, v)],
                    },
                    els: Some(Block { on_gpu: false, stmts: chain }),
                },
                line: Some(line),
            }];
        }
        for stmt in chain {
            self.emit(stmt.kind);
        }
        Ok(Val::One(Lowered::new(vrir::Expr::var(t), ty)))
    }

    /// The position `key` selects in `lt` (`base` names the list in diagnostics).
    fn position(&self, lt: &ListTy, key: &Key, base: &str, line: Line) -> LResult<usize> {
        match key {
            Key::Name(n) => lt.position(n).ok_or_else(|| {
                self.unsupported(
                    &format!("`{base}${n}`"),
                    line,
                    &format!(
                        "the list has no element named `{n}` (its names: {}); R gives NULL (or a partial match)",
                        names_of(lt)
                    ),
                )
            }),
            Key::Pos(k) if *k >= 1 && (*k as usize) <= lt.fields.len() => Ok(*k as usize - 1),
            Key::Pos(k) => Err(self.unsupported(
                &format!("`{base}[[{k}]]`"),
                line,
                &format!("subscript out of bounds: the list has {} element(s)", lt.fields.len()),
            )),
        }
    }

    fn select(&mut self, t: Val, key: &Key, base: &Expr, line: Line) -> LResult<Val> {
        let what = describe_expr(base);
        let l = match t {
            Val::List(l) => l,
            Val::One(v) => {
                let sel = match key {
                    Key::Name(n) => format!("{what}${n}"),
                    Key::Pos(k) => format!("{what}[[{k}]]"),
                };
                return Err(self.unsupported(&format!("`{sel}`"), line, &format!("`{what}` is a {}, not a list", v.ty)));
            }
        };
        let k = self.position(&l.ty, key, &what, line)?;
        l.element(k).map_err(|desc| {
            self.unsupported(
                &format!("element `{}` of `{what}`", l.ty.key(k)),
                line,
                &format!("it is {desc}; compiled code reads only double, integer and logical elements"),
            )
        })
    }

    /// The place an assignment target's list part names: a list variable or a list
    /// element that is a list (`l`, `l$inner`), or a scalar or array element.
    pub(super) fn place(&mut self, e: &Expr, line: Line) -> LResult<Place> {
        match &e.kind {
            ExprKind::Var(name) => {
                let var = self.resolve(name).unwrap_or_else(|| name.clone());
                if var.starts_with('@') {
                    return Err(self.unsupported(
                        &format!("assignment into the global `{name}`"),
                        line,
                        "R would change a local copy; make the copy a variable of the function first",
                    ));
                }
                if self.is_list_var(&var) {
                    let lt = self.list_type(&var)?;
                    return Ok(Place::List(var, lt));
                }
                Ok(Place::Value(var))
            }
            ExprKind::Field { target, name } => {
                let base = self.list_place(target, line)?;
                self.select_place(base, &ExprKind::Str(name.clone()), line)
            }
            ExprKind::Index { target, indices, double: true } => {
                let base = self.list_place(target, line)?;
                let [Some(ix)] = indices.as_slice() else {
                    return Err(self.unsupported("assignment into a list", line, "select one element with `[[`"));
                };
                self.select_place(base, &ix.kind, line)
            }
            _ => Err(self.unsupported(
                "assignment into an index of an expression",
                line,
                "only `x[i] <- v` with a variable `x` (or a list's element) compiles",
            )),
        }
    }

    /// `place` for an expression that must be a list.
    pub(super) fn list_place(&mut self, e: &Expr, line: Line) -> LResult<Place> {
        match self.place(e, line)? {
            p @ Place::List(..) => Ok(p),
            Place::Value(v) => {
                if !self.final_pass() && !self.vars.contains_key(&v) && !self.recorded_contains(&v) {
                    return Err(LErr::NotYet);
                }
                Err(self.unsupported(&format!("assignment into an element of `{}`", describe_expr(e)), line, "it is not a list"))
            }
        }
    }

    /// The element of list place `base` that `ix` (a name or constant position) selects.
    pub(super) fn select_place(&mut self, base: Place, ix: &ExprKind, line: Line) -> LResult<Place> {
        let Place::List(var, lt) = base else { unreachable!("list_place gives lists") };
        if lt.frame {
            return Err(self.unsupported(
                &format!("assignment into the data frame `{var}`"),
                line,
                "data frames are read-only in compiled code; copy the column into a variable first",
            ));
        }
        let key = self.key(ix, line)?;
        let k = match (&key, self.position(&lt, &key, &var, line)) {
            (_, Ok(k)) => k,
            (Key::Name(n), Err(_)) => {
                return Err(self.unsupported(
                    &format!("`{var}${n} <- ...`"),
                    line,
                    &format!(
                        "adding an element to a list does not compile (its names: {}); make the list with every element (`list({n} = ...)`)",
                        names_of(&lt)
                    ),
                ))
            }
            (_, Err(e)) => return Err(e),
        };
        let leaf = leaf_name(&var, &[lt.key(k)]);
        match &lt.fields[k].ty {
            AnyTy::Value(_) => Ok(Place::Value(leaf)),
            AnyTy::List(sub) => Ok(Place::List(leaf, sub.clone())),
            AnyTy::Opaque(what) => Err(self.unsupported(&format!("assignment into `{leaf}`"), line, &format!("it is {what}"))),
        }
    }

    /// `place <- value`.
    pub(super) fn assign_place(&mut self, place: Place, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        match (place, self.any_expr(value)?) {
            (Place::Value(leaf), Val::One(v)) => self.assign_var(&leaf, v, line, out),
            (Place::List(var, lt), Val::List(l)) if lt.same_shape(&l.ty) => self.assign_leaves(&var, l, line, out),
            (Place::List(var, lt), Val::List(l)) => Err(self.diag(
                ErrorKind::Type,
                &format!("assignment to `{var}`"),
                line,
                &format!("`{var}` is a {lt} and the value a {}; a compiled list keeps its names", l.ty),
            )),
            (Place::List(var, _), Val::One(v)) => Err(self.diag(
                ErrorKind::Type,
                &format!("assignment to `{var}`"),
                line,
                &format!("`{var}` is a list and the value a {}", v.ty),
            )),
            (Place::Value(leaf), Val::List(_)) => Err(self.unsupported(
                &format!("assignment of a list to `{leaf}`"),
                line,
                "a list element that is a scalar or array stays one",
            )),
        }
    }

    /// `name <- list`: the variable's shape joins the list's; each element is assigned.
    pub(super) fn assign_list(&mut self, name: &str, l: ListVal, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        if self.vars.contains_key(name) || self.recorded_contains(name) {
            let t = self.vars.get(name).copied().map_or("scalar or array".to_string(), |t| t.to_string());
            return Err(self.diag(
                ErrorKind::Type,
                &format!("assignment to `{name}`"),
                line,
                &format!(
                    "`{name}` is a {t} elsewhere and a {} here; a compiled variable keeps one type (use another name)",
                    l.ty
                ),
            ));
        }
        if let Some(prev) = self.recorded_lists.get(name) {
            if !prev.same_shape(&l.ty) {
                let prev = prev.clone();
                return Err(self.diag(
                    ErrorKind::Type,
                    &format!("assignment to `{name}`"),
                    line,
                    &format!(
                        "`{name}` is a {prev} elsewhere and a {} here; a compiled list keeps its names and element kinds",
                        l.ty
                    ),
                ));
            }
        } else {
            self.recorded_lists.insert(name.to_string(), l.ty.clone());
        }
        self.assign_leaves(name, l, line, out)
    }

    fn assign_leaves(&mut self, name: &str, l: ListVal, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let targets: Vec<String> = l.ty.leaves().into_iter().map(|(path, _)| leaf_name(name, &path)).collect();
        // Every value is read before the first store when a value reads one of the
        // targets (`l <- list(a = l$b, b = l$a)` swaps).
        let lang = self.prog.lang;
        let reads_target = |v: &Lowered| matches!(&v.expr, vrir::Expr::Var { name: src } if targets.iter().any(|t| lang.vrir_name(t) == *src));
        let staged = l.leaves.iter().any(reads_target);
        let values: Vec<Lowered> = l
            .leaves
            .into_iter()
            .map(|v| {
                if staged && !matches!(v.expr, vrir::Expr::Const { .. }) {
                    self.hoist_copy(v)
                } else {
                    v
                }
            })
            .collect();
        for (leaf, v) in targets.iter().zip(values) {
            self.assign_var(leaf, v, line, out)?;
        }
        Ok(())
    }

    /// `v` in a temporary of its own (a variable too: the store must not see later
    /// stores through it).
    fn hoist_copy(&mut self, v: Lowered) -> Lowered {
        let t = self.temp(&v.ty.vrir(self.layout()));
        self.emit(vrir::StmtKind::Assign {
            targets: vec![vrir::LValue::Var { name: t.clone() }],
            value: v.expr,
        });
        Lowered::new(vrir::Expr::var(t), v.ty)
    }
}

/// What the first element of `lt` compiled code cannot hold is (None: there is none).
fn opaque_in(lt: &ListTy) -> Option<String> {
    lt.fields.iter().find_map(|f| match &f.ty {
        AnyTy::Opaque(w) => Some(w.clone()),
        AnyTy::List(l) => opaque_in(l),
        AnyTy::Value(_) => None,
    })
}

fn names_of(lt: &ListTy) -> String {
    if lt.fields.is_empty() {
        return "none".into();
    }
    lt.fields
        .iter()
        .enumerate()
        .map(|(k, f)| f.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("[[{}]]", k + 1)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Replace every read of the variable `var` in `e` by `with` (a constant); false when
/// `e` assigns `var`, loops over it or defines a function (which could capture it).
fn replace_var(e: &mut Expr, var: &str, with: &ExprKind) -> bool {
    match &mut e.kind {
        ExprKind::Var(n) if n == var => {
            e.kind = with.clone();
            true
        }
        ExprKind::For { var: v, .. } if v == var => false,
        ExprKind::Assign { target, .. } if super::lift::assigned_base(target).as_deref() == Some(var) => false,
        ExprKind::Function(_) | ExprKind::LocalFunction { .. } => false,
        ExprKind::Unary(_, a) => replace_var(a, var, with),
        ExprKind::Binary(_, a, b) => replace_var(a, var, with) && replace_var(b, var, with),
        ExprKind::Call { args, .. } => args.iter_mut().all(|a| replace_var(&mut a.value, var, with)),
        ExprKind::CallExpr { callee, args } => replace_var(callee, var, with) && args.iter_mut().all(|a| replace_var(&mut a.value, var, with)),
        ExprKind::Index { target, indices, .. } => replace_var(target, var, with) && indices.iter_mut().flatten().all(|i| replace_var(i, var, with)),
        ExprKind::Field { target, .. } => replace_var(target, var, with),
        ExprKind::Block(items) => items.iter_mut().all(|i| replace_var(i, var, with)),
        ExprKind::If { cond, then, els } => replace_var(cond, var, with) && replace_var(then, var, with) && els.as_deref_mut().is_none_or(|x| replace_var(x, var, with)),
        ExprKind::For { seq, body, .. } => replace_var(seq, var, with) && replace_var(body, var, with),
        ExprKind::While { cond, body } => replace_var(cond, var, with) && replace_var(body, var, with),
        ExprKind::Repeat(body) => replace_var(body, var, with),
        ExprKind::Assign { target, value } => replace_var(target, var, with) && replace_var(value, var, with),
        _ => true,
    }
}

/// Is `e` a path of a variable and constant keys (`l`, `data$bodies`, `l[["a"]]`), which
/// lowering only reads (so it may be lowered twice)?
fn is_list_path(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) => true,
        ExprKind::Field { target, .. } => is_list_path(target),
        ExprKind::Index { target, indices, double: true } => {
            matches!(indices.as_slice(), [Some(Expr { kind: ExprKind::Str(_) | ExprKind::Int(_) | ExprKind::Double(_), .. })]) && is_list_path(target)
        }
        _ => false,
    }
}
