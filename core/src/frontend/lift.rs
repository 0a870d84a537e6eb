//! Lambda lifting: functions defined inside a function (`eval_A <- function(i, j) ...`
//! in `run`) and anonymous functions (`function(v) ...`, R 4.1's `\(v) ...`) become
//! program functions of their own, specialized per argument types like top-level ones.
//!
//! A lifted function reads the variables of the functions around it through extra
//! parameters, its *captures*, which every call passes after the written arguments
//! (`Lowerer::user_call`). That is R's lexical scoping exactly where a value cannot
//! change between the read and the call, which holds here: the caller passes its
//! variable's value at the moment of the call, which is what R would find in the
//! enclosing environment then, and the callee's assignments to such a name make a
//! local copy in R as they do with a by-value parameter (`x <- x + 1`, `x[i] <- v` in
//! the inner function leave the outer `x` alone in both). What stays out: `<<-` (the
//! parser names it), a function value that escapes (returned, stored in a variable:
//! `Lowerer::read_var` names it), and a call that would have to pass a variable the
//! caller hides behind one of its own (`shadowed`).
//!
//! Which names a function captures: those it may read before assigning them (a scan in
//! evaluation order, `free_reads`) that an enclosing function declares (a parameter or
//! an assigned variable), plus what the lifted functions it refers to capture from
//! further out, forwarded through every scope in between (a fixpoint, `captures`).

use super::hir::{Expr, ExprKind, FunctionDef, Param};
use super::infer::Program;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// A function defined inside another, lifted out into a program function of its own.
#[derive(Clone, Debug)]
pub struct Lifted {
    /// The program function it was defined in (its lexical parent).
    pub parent: String,
    /// The top-level function around it: diagnostics and run-time errors name that one,
    /// whose source lines they count.
    pub outer: String,
    /// How messages name it: "function `eval_A`" or "the function at line 5".
    pub display: String,
    /// Its VRIR name (specializations add `__2`, ...).
    pub vrir_base: String,
    /// The number of formals it was written with; its captures follow as parameters.
    pub formals: usize,
    /// The variables of enclosing functions it reads, passed at each call, in order.
    pub captures: Vec<String>,
}

/// What lifting found in a program: the lifted functions and the scopes that name them.
#[derive(Clone, Debug, Default)]
pub struct Closures {
    /// By program name (`run/eval_A`, `run/function@5`): names no R source can spell,
    /// so they never meet a user's function.
    pub lifted: BTreeMap<String, Lifted>,
    /// For each program function, the functions it defines by name (R name -> program
    /// name).
    pub local_fns: BTreeMap<String, BTreeMap<String, String>>,
    /// (caller, callee, variable): the callee captures `variable` from a scope further
    /// out, but the caller declares a `variable` of its own, so it cannot pass the
    /// callee's.
    pub shadowed: BTreeSet<(String, String, String)>,
    /// Outlined sections (`frontend::sections`) by program name: the function each was
    /// cut from. Calls in a section reach what they reach in that function.
    pub sections: BTreeMap<String, String>,
}

impl Closures {
    /// The program function `name` means when called from program function `scope`: a
    /// function defined there or in an enclosing function, nearest first. None when no
    /// local function has that name (it may still be a top-level one).
    pub fn resolve(&self, scope: &str, name: &str) -> Option<String> {
        let mut s = self.sections.get(scope).map_or(scope, String::as_str);
        loop {
            if let Some(p) = self.local_fns.get(s).and_then(|m| m.get(name)) {
                return Some(p.clone());
            }
            s = &self.lifted.get(s)?.parent;
        }
    }

    /// The top-level function a program function belongs to (itself when top-level).
    pub fn outer<'a>(&'a self, name: &'a str) -> &'a str {
        self.lifted.get(name).map_or(name, |l| l.outer.as_str())
    }
}

/// Lift every function defined inside a function of `p`, and work out what each
/// captures. Constructs lifting cannot give R's meaning to become `Unsupported`
/// expressions, diagnosed when (and only when) the function holding them compiles.
pub fn lift_program(p: &mut Program) {
    let tops: Vec<String> = {
        let mut v: Vec<String> = p.defs.keys().cloned().collect();
        v.sort();
        v
    };
    let mut taken: HashSet<String> = tops.iter().map(|n| p.lang.vrir_name(n)).collect();
    let mut queue: Vec<String> = tops.into_iter().rev().collect();
    while let Some(scope) = queue.pop() {
        let Some(mut def) = p.defs.remove(&scope) else {
            continue;
        };
        let (outer, scope_vrir) = match p.closures.lifted.get(&scope) {
            Some(l) => (l.outer.clone(), l.vrir_base.clone()),
            None => (scope.clone(), p.lang.vrir_name(&scope)),
        };
        let mut cx = Collect {
            scope: &scope,
            found: Vec::new(),
            named: BTreeMap::new(),
            lambda_lines: BTreeMap::new(),
        };
        for prm in &mut def.params {
            if let Some(d) = &mut prm.default {
                cx.walk(d, false);
            }
        }
        cx.walk(&mut def.body, true);
        let Collect { found, named, .. } = cx;
        // A name that is both a local function and a variable of the same function
        // cannot be told apart by a flow-insensitive compiler: refuse the definition.
        let vars = declared(&def);
        let clash: BTreeSet<String> = named
            .keys()
            .filter(|n| vars.contains(*n))
            .cloned()
            .collect();
        if !clash.is_empty() {
            refuse_clashes(&mut def.body, &clash, &scope);
        }
        let callable: BTreeSet<String> = named
            .keys()
            .filter(|n| !clash.contains(*n))
            .cloned()
            .collect();
        if !callable.is_empty() {
            refuse_early_calls(&mut def.body, &callable, &mut BTreeSet::new());
        }
        let mut locals = BTreeMap::new();
        for (name, lifted) in &named {
            if !clash.contains(name) {
                locals.insert(name.clone(), lifted.clone());
            }
        }
        if !locals.is_empty() {
            p.closures.local_fns.insert(scope.clone(), locals);
        }
        for f in found {
            let base = p.lang.vrir_name(&format!("{scope_vrir}.{}", f.short));
            let mut vrir_base = base.clone();
            let mut k = 2;
            while taken.contains(&vrir_base) {
                vrir_base = format!("{base}_{k}");
                k += 1;
            }
            taken.insert(vrir_base.clone());
            p.closures.lifted.insert(
                f.program_name.clone(),
                Lifted {
                    parent: scope.clone(),
                    outer: outer.clone(),
                    display: f.display,
                    vrir_base,
                    formals: f.def.params.len(),
                    captures: Vec::new(),
                },
            );
            p.defs.insert(f.program_name.clone(), f.def);
            queue.push(f.program_name);
        }
        p.defs.insert(scope, def);
    }
    compute_captures(p);
}

/// A function found inside another.
struct Found {
    program_name: String,
    /// What its VRIR name adds to its parent's: `eval_A`, `fn5`.
    short: String,
    display: String,
    def: FunctionDef,
}

struct Collect<'a> {
    scope: &'a str,
    found: Vec<Found>,
    /// Local functions defined by name: R name -> program name.
    named: BTreeMap<String, String>,
    /// Anonymous functions seen per line, to number those sharing one.
    lambda_lines: BTreeMap<u32, u32>,
}

impl Collect<'_> {
    /// Replace the functions inside `e` by references to their lifted copies.
    /// `stmt`: `e` stands where a statement does (a definition `g <- function` there
    /// defines a local function).
    fn walk(&mut self, e: &mut Expr, stmt: bool) {
        let line = e.line;
        if stmt {
            if let ExprKind::Assign { target, value } = &mut e.kind {
                if let (ExprKind::Var(name), ExprKind::Function(_)) = (&target.kind, &value.kind) {
                    let name = name.clone();
                    let ExprKind::Function(def) =
                        std::mem::replace(&mut value.kind, ExprKind::Null)
                    else {
                        unreachable!()
                    };
                    if self.named.contains_key(&name) {
                        e.kind = ExprKind::Unsupported(format!(
                            "a second definition of function `{name}` in the same function (compiled code binds each local function name once)"
                        ));
                        return;
                    }
                    let program_name = format!("{}/{name}", self.scope);
                    self.named.insert(name.clone(), program_name.clone());
                    self.found.push(Found {
                        program_name: program_name.clone(),
                        short: name.clone(),
                        display: format!("function `{name}`"),
                        def,
                    });
                    e.kind = ExprKind::LocalFunction {
                        name,
                        lifted: program_name,
                    };
                    return;
                }
            }
        }
        match &mut e.kind {
            ExprKind::Function(_) => {
                let ExprKind::Function(def) = std::mem::replace(&mut e.kind, ExprKind::Null) else {
                    unreachable!()
                };
                let k = self.lambda_lines.entry(line).or_insert(0);
                *k += 1;
                let suffix = if *k == 1 {
                    String::new()
                } else {
                    format!("_{k}")
                };
                let program_name = format!("{}/function@{line}{suffix}", self.scope);
                self.found.push(Found {
                    program_name: program_name.clone(),
                    short: format!("fn{line}{suffix}"),
                    display: format!("the function at line {line}"),
                    def,
                });
                e.kind = ExprKind::Var(program_name);
            }
            ExprKind::Block(items) => items.iter_mut().for_each(|i| self.walk(i, stmt)),
            ExprKind::If { cond, then, els } => {
                self.walk(cond, false);
                self.walk(then, stmt);
                if let Some(x) = els {
                    self.walk(x, stmt);
                }
            }
            ExprKind::For { seq, body, .. } => {
                self.walk(seq, false);
                self.walk(body, true);
            }
            ExprKind::While { cond, body } => {
                self.walk(cond, false);
                self.walk(body, true);
            }
            ExprKind::Repeat(body) => self.walk(body, true),
            ExprKind::Assign { target, value } => {
                self.walk(target, false);
                self.walk(value, false);
            }
            ExprKind::Unary(_, a) => self.walk(a, false),
            ExprKind::Binary(_, a, b) => {
                self.walk(a, false);
                self.walk(b, false);
            }
            ExprKind::Call { args, .. } => {
                args.iter_mut().for_each(|a| self.walk(&mut a.value, false))
            }
            ExprKind::CallExpr { callee, args } => {
                self.walk(callee, false);
                args.iter_mut().for_each(|a| self.walk(&mut a.value, false));
            }
            ExprKind::Index {
                target, indices, ..
            } => {
                self.walk(target, false);
                indices
                    .iter_mut()
                    .flatten()
                    .for_each(|i| self.walk(i, false));
            }
            ExprKind::Field { target, .. } => self.walk(target, false),
            _ => {}
        }
    }
}

/// Turn the definitions of local functions whose names are also variables into
/// diagnostics.
fn refuse_clashes(e: &mut Expr, clash: &BTreeSet<String>, scope: &str) {
    if let ExprKind::LocalFunction { name, .. } = &e.kind {
        if clash.contains(name) {
            e.kind = ExprKind::Unsupported(format!(
                "`{name}`, both a function and a variable of `{}`",
                scope.rsplit('/').next().unwrap_or(scope)
            ));
        }
        return;
    }
    for_each_child(e, &mut |c| refuse_clashes(c, clash, scope));
}

/// Turn the uses of a local function (`names`) that may come before its definition
/// runs into diagnostics: R would stop with "could not find function". Evaluation
/// order, as in `free_reads`; `defined`: the definitions run on every path so far.
fn refuse_early_calls(e: &mut Expr, names: &BTreeSet<String>, defined: &mut BTreeSet<String>) {
    let early = |n: &String, defined: &BTreeSet<String>| names.contains(n) && !defined.contains(n);
    match &mut e.kind {
        ExprKind::LocalFunction { name, .. } => {
            defined.insert(name.clone());
        }
        ExprKind::Call { func, args } => {
            args.iter_mut()
                .for_each(|a| refuse_early_calls(&mut a.value, names, defined));
            if early(func, defined) {
                e.kind = ExprKind::Unsupported(format!(
                    "call of function `{func}` before its definition (R: could not find function)"
                ));
            }
        }
        ExprKind::Var(n) if early(n, defined) => {
            e.kind = ExprKind::Unsupported(format!("function `{n}` used before its definition"));
        }
        ExprKind::If { cond, then, els } => {
            refuse_early_calls(cond, names, defined);
            let mut dt = defined.clone();
            refuse_early_calls(then, names, &mut dt);
            let mut de = defined.clone();
            if let Some(x) = els {
                refuse_early_calls(x, names, &mut de);
            }
            *defined = dt.intersection(&de).cloned().collect();
        }
        ExprKind::For { seq, body, .. } => {
            refuse_early_calls(seq, names, defined);
            refuse_early_calls(body, names, &mut defined.clone());
        }
        ExprKind::While { cond, body } => {
            refuse_early_calls(cond, names, defined);
            refuse_early_calls(body, names, &mut defined.clone());
        }
        ExprKind::Repeat(body) => refuse_early_calls(body, names, &mut defined.clone()),
        ExprKind::Assign { target, value } => {
            refuse_early_calls(value, names, defined);
            refuse_early_calls(target, names, defined);
        }
        _ => for_each_child(e, &mut |c| refuse_early_calls(c, names, defined)),
    }
}

fn for_each_child(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Block(items) => items.iter_mut().for_each(f),
        ExprKind::If { cond, then, els } => {
            f(cond);
            f(then);
            if let Some(x) = els {
                f(x);
            }
        }
        ExprKind::For { seq, body, .. } => {
            f(seq);
            f(body);
        }
        ExprKind::While { cond, body } => {
            f(cond);
            f(body);
        }
        ExprKind::Repeat(body) => f(body),
        ExprKind::Assign { target, value } => {
            f(target);
            f(value);
        }
        ExprKind::Unary(_, a) => f(a),
        ExprKind::Binary(_, a, b) => {
            f(a);
            f(b);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(|a| f(&mut a.value)),
        ExprKind::CallExpr { callee, args } => {
            f(callee);
            args.iter_mut().for_each(|a| f(&mut a.value));
        }
        ExprKind::Index {
            target, indices, ..
        } => {
            f(target);
            indices.iter_mut().flatten().for_each(f);
        }
        ExprKind::Field { target, .. } => f(target),
        _ => {}
    }
}

/// The direct subexpressions of `e`.
fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Block(items) => items.iter().collect(),
        ExprKind::If { cond, then, els } => {
            let mut v = vec![&**cond, &**then];
            v.extend(els.as_deref());
            v
        }
        ExprKind::For { seq, body, .. } => vec![seq, body],
        ExprKind::While { cond, body } => vec![cond, body],
        ExprKind::Repeat(body) => vec![body],
        ExprKind::Assign { target, value } => vec![target, value],
        ExprKind::Unary(_, a) => vec![a],
        ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Call { args, .. } => args.iter().map(|a| &a.value).collect(),
        ExprKind::CallExpr { callee, args } => std::iter::once(&**callee)
            .chain(args.iter().map(|a| &a.value))
            .collect(),
        ExprKind::Index {
            target, indices, ..
        } => std::iter::once(&**target)
            .chain(indices.iter().flatten())
            .collect(),
        ExprKind::Field { target, .. } => vec![target],
        _ => Vec::new(),
    }
}

/// The variables a function declares: its parameters, the names it assigns (whole or
/// through an index) and its loop variables. Functions lifted out of it are not in its
/// body any more, so their variables do not count.
pub fn declared(def: &FunctionDef) -> BTreeSet<String> {
    fn go(e: &Expr, out: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::Assign { target, value } => {
                match &target.kind {
                    ExprKind::Var(n) => {
                        out.insert(n.clone());
                    }
                    // `x[i] <- v`; `l$a <- v`, `l[["a"]][i] <- v`: the list `l`.
                    ExprKind::Index { .. } | ExprKind::Field { .. } => {
                        if let Some(n) = assigned_base(target) {
                            out.insert(n);
                        }
                    }
                    _ => {}
                }
                go(value, out);
            }
            ExprKind::For { var, seq, body } => {
                out.insert(var.clone());
                go(seq, out);
                go(body, out);
            }
            _ => children(e).into_iter().for_each(|c| go(c, out)),
        }
    }
    let mut out: BTreeSet<String> = def.params.iter().map(|p| p.name.clone()).collect();
    go(&def.body, &mut out);
    out
}

/// The variable an indexed or element assignment's target changes (`x` of `x[i]`,
/// `l$a[i]`, `l[["a"]]`).
pub fn assigned_base(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Var(n) => Some(n.clone()),
        ExprKind::Index { target, .. } | ExprKind::Field { target, .. } => assigned_base(target),
        _ => None,
    }
}

/// The names a function may read before it assigns them (its parameters count as
/// assigned): evaluation order, with only what every path assigns counted as assigned
/// after an `if`, and nothing a `while` or `for` body assigns counted after the loop
/// (the loop variable itself is, as R leaves it bound).
pub fn free_reads(def: &FunctionDef) -> BTreeSet<String> {
    fn go(e: &Expr, d: &mut BTreeSet<String>, out: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::Var(n) if !d.contains(n) => {
                out.insert(n.clone());
            }
            ExprKind::Assign { target, value } => {
                go(value, d, out);
                match &target.kind {
                    ExprKind::Var(n) => {
                        d.insert(n.clone());
                    }
                    ExprKind::Index {
                        target: t, indices, ..
                    } => {
                        for i in indices.iter().flatten() {
                            go(i, d, out);
                        }
                        match &t.kind {
                            ExprKind::Var(n) => {
                                // `x[i] <- v` reads `x` first.
                                if !d.contains(n) {
                                    out.insert(n.clone());
                                }
                                d.insert(n.clone());
                            }
                            _ => go(t, d, out),
                        }
                    }
                    _ => go(target, d, out),
                }
            }
            ExprKind::If { cond, then, els } => {
                go(cond, d, out);
                let mut dt = d.clone();
                go(then, &mut dt, out);
                let mut de = d.clone();
                if let Some(x) = els {
                    go(x, &mut de, out);
                }
                *d = dt.intersection(&de).cloned().collect();
            }
            ExprKind::For { var, seq, body } => {
                go(seq, d, out);
                let mut db = d.clone();
                db.insert(var.clone());
                go(body, &mut db, out);
                d.insert(var.clone());
            }
            ExprKind::While { cond, body } => {
                go(cond, d, out);
                let mut db = d.clone();
                go(body, &mut db, out);
            }
            ExprKind::Repeat(body) => {
                let mut db = d.clone();
                go(body, &mut db, out);
            }
            ExprKind::Block(items) => items.iter().for_each(|i| go(i, d, out)),
            ExprKind::Binary(super::hir::BinOp::AndAnd | super::hir::BinOp::OrOr, a, b) => {
                go(a, d, out);
                let mut db = d.clone();
                go(b, &mut db, out);
            }
            ExprKind::Unary(_, a) => go(a, d, out),
            ExprKind::Binary(_, a, b) => {
                go(a, d, out);
                go(b, d, out);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| go(&a.value, d, out)),
            ExprKind::CallExpr { callee, args } => {
                go(callee, d, out);
                args.iter().for_each(|a| go(&a.value, d, out));
            }
            ExprKind::Index {
                target, indices, ..
            } => {
                go(target, d, out);
                indices.iter().flatten().for_each(|i| go(i, d, out));
            }
            ExprKind::Field { target, .. } => go(target, d, out),
            _ => {}
        }
    }
    let mut d: BTreeSet<String> = def.params.iter().map(|p| p.name.clone()).collect();
    let mut out = BTreeSet::new();
    for p in &def.params {
        if let Some(x) = &p.default {
            go(x, &mut d.clone(), &mut out);
        }
    }
    go(&def.body, &mut d, &mut out);
    out
}

/// The lifted functions `scope`'s body refers to: calls by name, function values given
/// by name or as a string (`sapply(x, eval_A)`, `"eval_A"`), anonymous functions.
fn references(
    c: &Closures,
    scope: &str,
    def: &FunctionDef,
    vars: &BTreeSet<String>,
) -> BTreeSet<String> {
    fn go(
        c: &Closures,
        scope: &str,
        vars: &BTreeSet<String>,
        e: &Expr,
        out: &mut BTreeSet<String>,
    ) {
        let by_name = |n: &str| -> Option<String> {
            if c.lifted.contains_key(n) {
                return Some(n.to_string());
            }
            c.resolve(scope, n)
        };
        match &e.kind {
            ExprKind::Call { func, args } => {
                if let Some(p) = by_name(func) {
                    out.insert(p);
                }
                args.iter().for_each(|a| go(c, scope, vars, &a.value, out));
                return;
            }
            ExprKind::Var(n) | ExprKind::Str(n) if !vars.contains(n) => {
                if let Some(p) = by_name(n) {
                    out.insert(p);
                }
                return;
            }
            _ => {}
        }
        children(e)
            .into_iter()
            .for_each(|x| go(c, scope, vars, x, out));
    }
    let mut out = BTreeSet::new();
    for p in &def.params {
        if let Some(x) = &p.default {
            go(c, scope, vars, x, &mut out);
        }
    }
    go(c, scope, vars, &def.body, &mut out);
    out
}

/// Work out each lifted function's captures (a fixpoint: what a function refers to may
/// capture more as the analysis goes on) and add them to its parameters.
fn compute_captures(p: &mut Program) {
    if p.closures.lifted.is_empty() {
        return;
    }
    let names: Vec<String> = p.defs.keys().cloned().collect();
    let declared_by: BTreeMap<String, BTreeSet<String>> = names
        .iter()
        .map(|n| (n.clone(), declared(&p.defs[n])))
        .collect();
    let reads: BTreeMap<String, BTreeSet<String>> = p
        .closures
        .lifted
        .keys()
        .map(|n| (n.clone(), free_reads(&p.defs[n])))
        .collect();
    let refs: BTreeMap<String, BTreeSet<String>> = names
        .iter()
        .map(|n| {
            (
                n.clone(),
                references(&p.closures, n, &p.defs[n], &declared_by[n]),
            )
        })
        .collect();
    let c = &mut p.closures;
    let parent = |c: &Closures, s: &str| c.lifted.get(s).map(|l| l.parent.clone());
    let mut caps: BTreeMap<String, BTreeSet<String>> = c
        .lifted
        .keys()
        .map(|n| (n.clone(), BTreeSet::new()))
        .collect();
    loop {
        let mut changed = false;
        // Reads of an enclosing function's variable: captured by every scope between.
        for (g, rs) in &reads {
            for x in rs {
                let mut chain = vec![g.clone()];
                let mut s = parent(c, g);
                let mut found = false;
                while let Some(a) = s {
                    if declared_by[&a].contains(x) {
                        found = true;
                        break;
                    }
                    s = parent(c, &a);
                    if s.is_some() {
                        chain.push(a);
                    }
                }
                if found {
                    for s in chain {
                        changed |= caps.get_mut(&s).expect("lifted").insert(x.clone());
                    }
                }
            }
        }
        // References to a lifted function: its captures come from its parent, through
        // every scope between the referrer and that parent.
        for (g, hs) in &refs {
            for h in hs {
                let Some(p2) = parent(c, h) else { continue };
                let needed: Vec<String> = caps[h].iter().cloned().collect();
                for x in needed {
                    let mut s = g.clone();
                    while s != p2 {
                        if declared_by[&s].contains(&x) {
                            c.shadowed.insert((g.clone(), h.clone(), x.clone()));
                            break;
                        }
                        let (Some(next), Some(set)) = (parent(c, &s), caps.get_mut(&s)) else {
                            break;
                        };
                        changed |= set.insert(x.clone());
                        s = next;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (name, set) in caps {
        let list: Vec<String> = set.into_iter().collect();
        let def = p
            .defs
            .get_mut(&name)
            .expect("lifted functions are program functions");
        for x in &list {
            def.params.push(Param {
                name: x.clone(),
                default: None,
            });
        }
        p.closures.lifted.get_mut(&name).expect("lifted").captures = list;
    }
}
