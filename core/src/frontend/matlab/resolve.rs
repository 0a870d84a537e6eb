//! From MATLAB's syntax tree to the shared HIR, with every function's variables known.
//! What MATLAB decides by name, this module decides once per function:
//!
//! - a name is a variable when the function assigns it anywhere (or it is a parameter,
//!   an output or a loop variable); `a(i)` then indexes it, and otherwise calls a
//!   function of the file or a builtin; a bare name that is no variable is a call
//!   without arguments (`pi`, `i`, `eps`, `nargin`, a function of the file);
//! - `end` inside `a(...)` is `__vr_end(a, k, n)`: the extent of dimension k of n (the
//!   element count for one index);
//! - `nargout` is a constant: every function with k outputs becomes k + 1 program
//!   functions, one per number of outputs a call asks for (`f` gives them all,
//!   `f.nargout1` the first, ... `f.nargout0` none), so that an output a caller does not
//!   ask for need not be assigned, as in MATLAB;
//! - a function's value is its outputs (`__vr_results(a, b)`, the engine's results
//!   marker) at the end and at each `return`;
//! - `parfor i = a:b` is the engine's parallel loop over a hidden counter; `gpu_begin()`
//!   ... `gpu_end()` the engine's GPU section; `switch` an `if` chain on a temporary;
//!   `do ... until` a loop that breaks;
//! - a variable written through an index is an array (MATLAB has no scalars: `x = 0;
//!   x(3) = 1` makes a 1x3 row), so whole assignments to it go through `__vr_matrix`,
//!   and a parameter written so is taken under another name (`x.arg`) and converted;
//! - index expressions that are whole numbers by construction (loop variables of
//!   integer ranges, integer literals, `end`, and `+ - *` of these) are marked
//!   `__vr_integral(e)`, so that compiled indexing skips the whole-number check MATLAB
//!   needs for any other double index.

use super::ast::{Lhs, MExpr, MExprKind, MFunction, Stmt, StmtKind};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, FunctionDef, Line, Param, UnOp};
use std::collections::{HashMap, HashSet};

/// The engine's several-results marker as this front end spells it (no MATLAB
/// identifier starts with `_`).
pub const RESULTS: &str = "__vr_results";
pub const GPU: &str = "__vr_gpu";
pub const PRANGE: &str = "__vr_prange";

/// The program function for function `name` (with `k` outputs) called for `n` outputs.
pub fn variant(name: &str, n: usize, k: usize) -> String {
    if n == k {
        name.to_string()
    } else {
        format!("{name}.nargout{n}")
    }
}

/// Every function of the file as program functions (one per number of outputs).
pub fn resolve(funcs: &[MFunction]) -> HashMap<String, FunctionDef> {
    let outputs: HashMap<String, usize> = funcs.iter().map(|f| (f.name.clone(), f.outputs.len())).collect();
    let mut defs = HashMap::new();
    for f in funcs {
        for n in 0..=f.outputs.len() {
            let mut r = Resolver::new(f, n, &outputs);
            let def = r.function();
            defs.insert(variant(&f.name, n, f.outputs.len()), def);
        }
    }
    defs
}

struct Resolver<'a> {
    f: &'a MFunction,
    /// The number of outputs this program function gives.
    nargout: usize,
    outputs: &'a HashMap<String, usize>,
    vars: HashSet<String>,
    /// Variables written through an index somewhere (arrays for their whole life).
    indexed: HashSet<String>,
    /// Loop variables whose every value is a whole number.
    integral: HashSet<String>,
    /// Of those, the variables of `for` loops (not parfor), and counts: compiled as i64
    /// integers, every read `__vr_loopvar(i)`, a double again; in subscripts and loop
    /// bounds they stay integer code (`index::int_expr`), which the optimizer's
    /// bounds-check versioning reads (docs/optimizer.md, "Front-end index code").
    loop_counters: HashSet<String>,
    /// Arrays that grow by indexed assignment: those created by it, those that start as
    /// `[]`, and those written at an index `end + k`. Their stores go through
    /// `__vr_grows(value)`, which grows them; a store past the end of any other array
    /// fails its bounds check, which `explain_error_in` leaves to Octave (so loops over
    /// preallocated arrays never reassign them, and keep bounds-check elimination).
    growing: HashSet<String>,
    /// Counts kept as integer variables (a subset of `loop_counters`): their definitions
    /// go through `__vr_as_count` / `__vr_size_count`.
    counts: HashSet<String>,
    /// Variables written through an index and never assigned whole (nor parameters or
    /// loop variables): MATLAB creates them on that first write, so they start as `[]`.
    created_by_index: Vec<String>,
    /// The variable whose `end` an index expression being resolved refers to, with the
    /// index position (1-based) and the number of indices.
    end_of: Option<(String, usize, usize)>,
    counter: u32,
}

fn e(kind: ExprKind, line: Line) -> Expr {
    Expr::new(kind, line)
}

fn call(func: &str, args: Vec<Expr>, line: Line) -> Expr {
    e(ExprKind::Call { func: func.into(), args: args.into_iter().map(|value| Arg { name: None, value }).collect() }, line)
}

fn unsupported(what: &str, line: Line) -> Expr {
    e(ExprKind::Unsupported(what.into()), line)
}

fn block(items: Vec<Expr>, line: Line) -> Expr {
    e(ExprKind::Block(items), line)
}

/// Visit every statement of `body`, nested ones included.
fn each_stmt<'s>(body: &'s [Stmt], f: &mut dyn FnMut(&'s Stmt)) {
    for s in body {
        f(s);
        match &s.kind {
            StmtKind::If { clauses, els } => {
                for (_, b) in clauses {
                    each_stmt(b, f);
                }
                if let Some(b) = els {
                    each_stmt(b, f);
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoUntil { body, .. } => each_stmt(body, f),
            StmtKind::Switch { cases, otherwise, .. } => {
                for (_, b) in cases {
                    each_stmt(b, f);
                }
                if let Some(b) = otherwise {
                    each_stmt(b, f);
                }
            }
            _ => {}
        }
    }
}

/// Every name an expression mentions.
fn names_in(x: &MExpr, out: &mut HashSet<String>) {
    match &x.kind {
        MExprKind::Ident(n) => {
            out.insert(n.clone());
        }
        MExprKind::Unary(_, a) | MExprKind::Postfix(_, a) => names_in(a, out),
        MExprKind::Binary(_, a, b) => {
            names_in(a, out);
            names_in(b, out);
        }
        MExprKind::Range { start, step, stop } => {
            names_in(start, out);
            if let Some(s) = step {
                names_in(s, out);
            }
            names_in(stop, out);
        }
        MExprKind::Apply(t, args) => {
            names_in(t, out);
            args.iter().for_each(|a| names_in(a, out));
        }
        MExprKind::Matrix(rows) | MExprKind::Cell(rows) => rows.iter().flatten().for_each(|a| names_in(a, out)),
        _ => {}
    }
}

/// Every name the statements mention (read or written).
fn names_in_stmts(body: &[Stmt], out: &mut HashSet<String>) {
    each_stmt(body, &mut |s| match &s.kind {
        StmtKind::Expr { e, .. } => names_in(e, out),
        StmtKind::Assign { lhs, rhs, .. } => {
            names_in(rhs, out);
            for l in lhs {
                match l {
                    Lhs::Var(n) => {
                        out.insert(n.clone());
                    }
                    Lhs::Index(n, args) => {
                        out.insert(n.clone());
                        args.iter().for_each(|a| names_in(a, out));
                    }
                    _ => {}
                }
            }
        }
        StmtKind::If { clauses, .. } => clauses.iter().for_each(|(c, _)| names_in(c, out)),
        StmtKind::For { var, range, .. } => {
            out.insert(var.clone());
            names_in(range, out);
        }
        StmtKind::While { cond, .. } | StmtKind::DoUntil { cond, .. } => names_in(cond, out),
        StmtKind::Switch { subject, cases, .. } => {
            names_in(subject, out);
            cases.iter().for_each(|(c, _)| names_in(c, out));
        }
        _ => {}
    });
}

/// Every name the statements read (a name written through an index is read too: the
/// elements not written stay).
fn reads_in_stmts(body: &[Stmt], out: &mut HashSet<String>) {
    each_stmt(body, &mut |s| match &s.kind {
        StmtKind::Expr { e, .. } => names_in(e, out),
        StmtKind::Assign { lhs, rhs, .. } => {
            names_in(rhs, out);
            for l in lhs {
                if let Lhs::Index(n, args) = l {
                    out.insert(n.clone());
                    args.iter().for_each(|a| names_in(a, out));
                }
            }
        }
        StmtKind::If { clauses, .. } => clauses.iter().for_each(|(c, _)| names_in(c, out)),
        StmtKind::For { range, .. } => names_in(range, out),
        StmtKind::While { cond, .. } | StmtKind::DoUntil { cond, .. } => names_in(cond, out),
        StmtKind::Switch { subject, cases, .. } => {
            names_in(subject, out);
            cases.iter().for_each(|(c, _)| names_in(c, out));
        }
        _ => {}
    });
}

/// Does any function of the file have a `for` loop over something other than a range
/// (compiled two ways: `rules::Matlab::loops_over_columns`)?
pub fn has_array_loops(funcs: &[MFunction]) -> bool {
    let mut found = false;
    for f in funcs {
        each_stmt(&f.body, &mut |s| found |= matches!(&s.kind, StmtKind::For { range, parallel: false, .. } if !matches!(range.kind, MExprKind::Range { .. })));
    }
    found
}

/// A `for` range that `rules::seq` compiles as integers (start and step checked to be
/// whole numbers at run time): any `a:b` or `a:s:b` whose start and step are not
/// literals with a fraction.
pub fn integer_range(start: &MExpr, step: Option<&MExpr>) -> bool {
    let whole = |x: &MExpr| match &x.kind {
        MExprKind::Num(v) => v.fract() == 0.0,
        MExprKind::Unary("-", a) => matches!(a.kind, MExprKind::Num(v) if v.fract() == 0.0) || !matches!(a.kind, MExprKind::Num(_)),
        _ => true,
    };
    whole(start) && step.is_none_or(whole)
}

impl<'a> Resolver<'a> {
    fn new(f: &'a MFunction, nargout: usize, outputs: &'a HashMap<String, usize>) -> Resolver<'a> {
        let mut vars: HashSet<String> = f.params.iter().chain(&f.outputs).cloned().collect();
        let mut indexed = HashSet::new();
        let mut loop_defs: HashMap<String, bool> = HashMap::new();
        let mut other_defs: HashSet<String> = f.params.iter().chain(&f.outputs).cloned().collect();
        each_stmt(&f.body, &mut |s| match &s.kind {
            StmtKind::Assign { lhs, .. } => {
                for l in lhs {
                    match l {
                        Lhs::Var(n) => {
                            vars.insert(n.clone());
                            other_defs.insert(n.clone());
                        }
                        Lhs::Index(n, _) => {
                            vars.insert(n.clone());
                            indexed.insert(n.clone());
                            other_defs.insert(n.clone());
                        }
                        _ => {}
                    }
                }
            }
            StmtKind::For { var, range, parallel, .. } => {
                vars.insert(var.clone());
                let whole = *parallel || matches!(&range.kind, MExprKind::Range { start, step, .. } if integer_range(start, step.as_deref()));
                let prev = loop_defs.get(var).copied().unwrap_or(true);
                loop_defs.insert(var.clone(), prev && whole);
            }
            _ => {}
        });
        let mut whole: HashSet<String> = f.params.iter().cloned().collect();
        each_stmt(&f.body, &mut |s| match &s.kind {
            StmtKind::Assign { lhs, .. } => {
                for l in lhs {
                    if let Lhs::Var(n) = l {
                        whole.insert(n.clone());
                    }
                }
            }
            StmtKind::For { var, .. } => {
                whole.insert(var.clone());
            }
            _ => {}
        });
        let mut created_by_index: Vec<String> = indexed.iter().filter(|n| !whole.contains(*n)).cloned().collect();
        created_by_index.sort();
        let integral: HashSet<String> = loop_defs.into_iter().filter(|(n, whole)| *whole && !other_defs.contains(n)).map(|(n, _)| n).collect();
        // A loop variable indexed as an array (`i(1)`) stays a double.
        let mut applied = HashSet::new();
        let mut parallel = HashSet::new();
        each_stmt(&f.body, &mut |s| {
            let mut visit = |x: &MExpr| apply_targets(x, &mut applied);
            match &s.kind {
                StmtKind::Expr { e, .. } => visit(e),
                StmtKind::Assign { rhs, lhs, .. } => {
                    visit(rhs);
                    for l in lhs {
                        if let Lhs::Index(_, args) = l {
                            args.iter().for_each(&mut visit);
                        }
                    }
                }
                StmtKind::If { clauses, .. } => clauses.iter().for_each(|(c, _)| visit(c)),
                StmtKind::For { range, var, parallel: p, .. } => {
                    visit(range);
                    if *p {
                        parallel.insert(var.clone());
                    }
                }
                StmtKind::While { cond, .. } | StmtKind::DoUntil { cond, .. } => visit(cond),
                StmtKind::Switch { subject, cases, .. } => {
                    visit(subject);
                    cases.iter().for_each(|(c, _)| visit(c));
                }
                _ => {}
            }
        });
        let mut loop_counters: HashSet<String> = integral.iter().filter(|n| !applied.contains(*n) && !parallel.contains(*n) && !f.outputs.contains(n)).cloned().collect();
        // Counts: variables whose every definition is `numel(x)`, `size(A, k)`,
        // `length(x)`, `rows(A)`, `columns(A)` or `[m, n] = size(A)` are integers too (read
        // as doubles), so that loops up to them have integer bounds.
        let mut count_defs: HashMap<String, bool> = HashMap::new();
        for p in f.params.iter().chain(&f.outputs) {
            count_defs.insert(p.clone(), false);
        }
        each_stmt(&f.body, &mut |s| match &s.kind {
            StmtKind::Assign { lhs, rhs, .. } => {
                let size_all = is_size_call(rhs) && lhs.len() > 1 && lhs.iter().all(|l| matches!(l, Lhs::Var(_) | Lhs::Tilde));
                for l in lhs {
                    match l {
                        Lhs::Var(n) => {
                            let ok = if lhs.len() == 1 { is_count_call(rhs) } else { size_all };
                            let prev = count_defs.get(n).copied().unwrap_or(true);
                            count_defs.insert(n.clone(), prev && ok);
                        }
                        Lhs::Index(n, _) => {
                            count_defs.insert(n.clone(), false);
                        }
                        _ => {}
                    }
                }
            }
            StmtKind::For { var, .. } => {
                count_defs.insert(var.clone(), false);
            }
            _ => {}
        });
        let counts: HashSet<String> = count_defs.into_iter().filter(|(n, ok)| *ok && !applied.contains(n)).map(|(n, _)| n).collect();
        let mut integral = integral;
        integral.extend(counts.iter().cloned());
        loop_counters.extend(counts.iter().cloned());
        let mut growing: HashSet<String> = created_by_index.iter().cloned().collect();
        each_stmt(&f.body, &mut |s| {
            if let StmtKind::Assign { lhs, rhs, .. } = &s.kind {
                for l in lhs {
                    match l {
                        Lhs::Var(n) if starts_empty(rhs) => {
                            growing.insert(n.clone());
                        }
                        Lhs::Index(n, args) if args.iter().any(past_end) => {
                            growing.insert(n.clone());
                        }
                        _ => {}
                    }
                }
            }
        });
        Resolver { f, nargout, outputs, vars, indexed, integral, loop_counters, counts, growing, created_by_index, end_of: None, counter: 0 }
    }

    fn function(&mut self) -> FunctionDef {
        let line = self.f.line;
        let mut items = Vec::new();
        let mut params = Vec::new();
        for p in &self.f.params {
            if self.indexed.contains(p) {
                // Written through an index: an array, whatever the caller passes.
                let arg = format!("{p}.arg");
                params.push(Param { name: arg.clone(), default: None });
                let value = call("__vr_matrix", vec![e(ExprKind::Var(arg), line)], line);
                items.push(e(ExprKind::Assign { target: Box::new(e(ExprKind::Var(p.clone()), line)), value: Box::new(value) }, line));
            } else {
                params.push(Param { name: p.clone(), default: None });
            }
        }
        for v in self.created_by_index.clone() {
            let empty = call("zeros", vec![e(ExprKind::Double(0.0), line), e(ExprKind::Double(0.0), line)], line);
            items.push(e(ExprKind::Assign { target: Box::new(e(ExprKind::Var(v), line)), value: Box::new(empty) }, line));
        }
        let body = self.stmts(&self.f.body);
        items.extend(body);
        let end_line = self.f.body.last().map_or(line, |s| s.line);
        items.push(self.results(end_line));
        FunctionDef { params, body: Box::new(block(items, line)) }
    }

    /// Leave the function with its first `nargout` outputs.
    fn results(&self, line: Line) -> Expr {
        let outs = self.f.outputs[..self.nargout].iter().map(|o| e(ExprKind::Var(o.clone()), line)).collect();
        call(RESULTS, outs, line)
    }

    /// Does the function read `var` (or return it) anywhere outside the loop body
    /// `body`?
    fn read_outside(&self, var: &str, body: &[Stmt]) -> bool {
        if self.f.outputs[..self.nargout].iter().any(|o| o == var) {
            return true;
        }
        let mut rest: Vec<Stmt> = Vec::new();
        outside_of(&self.f.body, body, &mut rest);
        let mut read = HashSet::new();
        reads_in_stmts(&rest, &mut read);
        read.contains(var)
    }

    fn fresh(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("__{what}{}", self.counter)
    }

    fn stmts(&mut self, body: &[Stmt]) -> Vec<Expr> {
        let mut out = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let s = &body[k];
            // `gpu_begin(); ...; gpu_end();` at one level: a GPU section.
            if is_marker_call(s, "gpu_begin") {
                match body[k + 1..].iter().position(|t| is_marker_call(t, "gpu_end")) {
                    Some(len) => {
                        let inner = self.stmts(&body[k + 1..k + 1 + len]);
                        out.push(call(GPU, vec![block(inner, s.line)], s.line));
                        k += len + 2;
                        continue;
                    }
                    None => {
                        out.push(unsupported("`gpu_begin()` without a matching `gpu_end()` in the same block", s.line));
                        k += 1;
                        continue;
                    }
                }
            }
            if is_marker_call(s, "gpu_end") {
                out.push(unsupported("`gpu_end()` without a matching `gpu_begin()` in the same block", s.line));
                k += 1;
                continue;
            }
            out.push(self.stmt(s));
            k += 1;
        }
        out
    }

    fn stmt(&mut self, s: &Stmt) -> Expr {
        let line = s.line;
        match &s.kind {
            StmtKind::Expr { e: x, printed } => {
                // A call for its effect asks for no output.
                if let Some(c) = self.statement_call(x) {
                    return c;
                }
                let is_call = matches!(&x.kind, MExprKind::Apply(t, _) if matches!(&t.kind, MExprKind::Ident(n) if !self.vars.contains(n)))
                    || matches!(&x.kind, MExprKind::Ident(n) if !self.vars.contains(n));
                if *printed && !is_call {
                    return unsupported("display of a value (a statement without `;`)", line);
                }
                self.expr(x)
            }
            StmtKind::Assign { lhs, rhs, printed, .. } => {
                if *printed {
                    let shown = match lhs.first() {
                        Some(Lhs::Var(n) | Lhs::Index(n, _)) => format!("display of `{n}` (an assignment without `;`)"),
                        _ => "display of an assignment's value (no `;`)".into(),
                    };
                    return unsupported(&shown, line);
                }
                self.assign(lhs, rhs, line)
            }
            StmtKind::If { clauses, els } => {
                let mut tail = els.as_ref().map(|b| block(self.stmts(b), line));
                for (cond, body) in clauses.iter().rev() {
                    let c = self.expr(cond);
                    let then = block(self.stmts(body), cond.line);
                    tail = Some(e(ExprKind::If { cond: Box::new(c), then: Box::new(then), els: tail.map(Box::new) }, cond.line));
                }
                tail.expect("an if has a clause")
            }
            StmtKind::For { var, range, body, parallel: false } => {
                // Octave assigns a loop of no turn's variable the empty sequence, which a
                // scalar loop variable cannot hold: where the function reads it outside
                // the loop, such a loop is left to Octave (`EMPTY_LOOP`).
                let read_outside = self.read_outside(var, body);
                let seq = match &range.kind {
                    MExprKind::Range { .. } => self.expr(range),
                    // Any other value: MATLAB iterates over its columns
                    // (`builtins::columns_loop`).
                    _ => call(super::builtins::COLUMNS_SOURCE, vec![self.expr(range), e(ExprKind::Bool(read_outside), range.line)], range.line),
                };
                let body = block(self.stmts(body), line);
                let lp = e(ExprKind::For { var: var.clone(), seq: Box::new(seq.clone()), body: Box::new(body) }, line);
                if read_outside && matches!(range.kind, MExprKind::Range { .. }) {
                    return block(vec![call(super::builtins::NONEMPTY_RANGE, vec![seq], range.line), lp], line);
                }
                lp
            }
            StmtKind::For { var, range, body, parallel: true } => self.parfor(var, range, body, line),
            StmtKind::While { cond, body } => {
                let c = self.expr(cond);
                let b = block(self.stmts(body), line);
                e(ExprKind::While { cond: Box::new(c), body: Box::new(b) }, line)
            }
            StmtKind::DoUntil { body, cond } => {
                let mut items = self.stmts(body);
                let c = self.expr(cond);
                items.push(e(ExprKind::If { cond: Box::new(c), then: Box::new(e(ExprKind::Break, cond.line)), els: None }, cond.line));
                e(ExprKind::Repeat(Box::new(block(items, line))), line)
            }
            StmtKind::Switch { subject, cases, otherwise } => self.switch(subject, cases, otherwise.as_deref(), line),
            StmtKind::Break => e(ExprKind::Break, line),
            StmtKind::Continue => e(ExprKind::Next, line),
            StmtKind::Return => self.results(line),
            StmtKind::Unsupported(what) => unsupported(what, line),
        }
    }

    /// `f(x);` or `f;` with `f` a function of the file: called for no output.
    fn statement_call(&mut self, x: &MExpr) -> Option<Expr> {
        let (name, args) = match &x.kind {
            MExprKind::Ident(n) => (n, &[][..]),
            MExprKind::Apply(t, args) => match &t.kind {
                MExprKind::Ident(n) => (n, args.as_slice()),
                _ => return None,
            },
            _ => return None,
        };
        if self.vars.contains(name) {
            return None;
        }
        let k = *self.outputs.get(name)?;
        let args = args.iter().map(|a| self.call_arg(a)).collect();
        Some(call(&variant(name, 0, k), args, x.line))
    }

    fn assign(&mut self, lhs: &[Lhs], rhs: &MExpr, line: Line) -> Expr {
        if lhs.len() == 1 && !matches!(lhs[0], Lhs::Tilde) {
            let value = self.value_of(rhs, 1);
            return match &lhs[0] {
                Lhs::Var(n) => {
                    let value = if self.indexed.contains(n) { call("__vr_matrix", vec![value], line) } else { value };
                    let value = if self.counts.contains(n) { call("__vr_as_count", vec![value], line) } else { value };
                    e(ExprKind::Assign { target: Box::new(e(ExprKind::Var(n.clone()), line)), value: Box::new(value) }, line)
                }
                Lhs::Index(n, args) => {
                    if matches!(&rhs.kind, MExprKind::Matrix(rows) if rows.is_empty()) {
                        return unsupported(&format!("deleting elements of `{n}` (`{n}(...) = []`)"), line);
                    }
                    let target = self.index(n, args, line);
                    let value = if self.growing.contains(n) { call("__vr_grows", vec![value], line) } else { value };
                    e(ExprKind::Assign { target: Box::new(target), value: Box::new(value) }, line)
                }
                Lhs::Unsupported(what) => unsupported(what, line),
                Lhs::Tilde => unreachable!("checked above"),
            };
        }
        // `[a, b] = f(x)`.
        let mut targets = Vec::new();
        for l in lhs {
            targets.push(match l {
                Lhs::Var(n) if self.indexed.contains(n) => return unsupported(&format!("`{n}` both among several outputs and written through an index"), line),
                Lhs::Var(n) => Some(e(ExprKind::Var(n.clone()), line)),
                Lhs::Index(n, args) => Some(self.index(n, args, line)),
                Lhs::Tilde => None,
                Lhs::Unsupported(what) => return unsupported(what, line),
            });
        }
        let mut value = self.value_of(rhs, lhs.len());
        if let ExprKind::Unsupported(_) = value.kind {
            return value;
        }
        if lhs.iter().any(|l| matches!(l, Lhs::Var(n) if self.counts.contains(n))) {
            if let ExprKind::Call { func, .. } = &mut value.kind {
                *func = "__vr_size_count".into();
            }
        }
        e(ExprKind::MultiAssign { targets, value: Box::new(value) }, line)
    }

    /// `rhs` called for `n` outputs when it is a call of a file function.
    fn value_of(&mut self, rhs: &MExpr, n: usize) -> Expr {
        let (name, args) = match &rhs.kind {
            MExprKind::Ident(name) => (name, &[][..]),
            MExprKind::Apply(t, args) => match &t.kind {
                MExprKind::Ident(name) => (name, args.as_slice()),
                _ => return self.expr(rhs),
            },
            _ if n > 1 => return unsupported("several outputs from something that is not a call", rhs.line),
            _ => return self.expr(rhs),
        };
        if self.vars.contains(name) {
            if n > 1 {
                return unsupported(&format!("several outputs from the variable `{name}`"), rhs.line);
            }
            return self.expr(rhs);
        }
        match self.outputs.get(name) {
            Some(&k) if n > k => unsupported(&format!("call to `{name}`: {n} outputs requested, it has {k}"), rhs.line),
            Some(&k) => {
                let args = args.iter().map(|a| self.call_arg(a)).collect();
                call(&variant(name, n, k), args, rhs.line)
            }
            // A builtin: asked for several results by the engine's `builtin_multi`.
            None => {
                let args = args.iter().map(|a| self.call_arg(a)).collect();
                call(name, args, rhs.line)
            }
        }
    }

    fn parfor(&mut self, var: &str, range: &MExpr, body: &[Stmt], line: Line) -> Expr {
        let MExprKind::Range { start, step: None, stop } = &range.kind else {
            return unsupported("`parfor` over anything but a range `a:b` of consecutive integers", line);
        };
        // Variables assigned in the body are private to each iteration in VRIR: one that
        // the function mentions outside the loop would be a reduction or a result.
        let mut inside = HashSet::new();
        each_stmt(body, &mut |s| {
            if let StmtKind::Assign { lhs, .. } = &s.kind {
                for l in lhs {
                    if let Lhs::Var(n) = l {
                        inside.insert(n.clone());
                    }
                }
            }
            if let StmtKind::For { var, .. } = &s.kind {
                inside.insert(var.clone());
            }
        });
        let mut outside = HashSet::new();
        let mut rest: Vec<Stmt> = Vec::new();
        outside_of(&self.f.body, body, &mut rest);
        names_in_stmts(&rest, &mut outside);
        for o in &self.f.outputs {
            outside.insert(o.clone());
        }
        let mut shared: Vec<&String> = inside.iter().filter(|n| outside.contains(*n)).collect();
        shared.sort();
        if let Some(n) = shared.first() {
            return unsupported(
                &format!("`{n}` assigned in a `parfor` body and used outside it (a reduction or a result; parfor iterations share only arrays written at distinct elements)"),
                line,
            );
        }
        let mut nested_exit = false;
        each_stmt(body, &mut |s| nested_exit |= matches!(s.kind, StmtKind::Break | StmtKind::Return));
        if nested_exit {
            return unsupported("`break` or `return` in a `parfor` body", line);
        }
        let counter = self.fresh("parfor");
        let start_e = self.expr(start);
        let count = call("__vr_count", vec![start_e.clone(), self.expr(stop)], line);
        // var = start + counter - 1, as a double.
        let k = call("double", vec![e(ExprKind::Var(counter.clone()), line)], line);
        let value = match start.kind {
            MExprKind::Num(1.0) => k,
            _ => e(ExprKind::Binary(BinOp::Add, Box::new(k), Box::new(e(ExprKind::Binary(BinOp::Sub, Box::new(start_e), Box::new(e(ExprKind::Double(1.0), line))), line))), line),
        };
        let mut items = vec![e(ExprKind::Assign { target: Box::new(e(ExprKind::Var(var.to_string()), line)), value: Box::new(value) }, line)];
        self.integral.insert(var.to_string());
        items.extend(self.stmts(body));
        e(ExprKind::For { var: counter, seq: Box::new(call(PRANGE, vec![count], line)), body: Box::new(block(items, line)) }, line)
    }

    fn switch(&mut self, subject: &MExpr, cases: &[(MExpr, Vec<Stmt>)], otherwise: Option<&[Stmt]>, line: Line) -> Expr {
        let tmp = self.fresh("switch");
        let mut items = vec![e(ExprKind::Assign { target: Box::new(e(ExprKind::Var(tmp.clone()), line)), value: Box::new(self.expr(subject)) }, line)];
        let mut tail = otherwise.map(|b| block(self.stmts(b), line));
        for (label, body) in cases.iter().rev() {
            // `case {1, 2}`: any of the labels.
            let values: Vec<&MExpr> = match &label.kind {
                MExprKind::Cell(rows) => rows.iter().flatten().collect(),
                _ => vec![label],
            };
            let mut cond: Option<Expr> = None;
            for v in values {
                if matches!(v.kind, MExprKind::Str(_)) {
                    return unsupported("`switch` on strings", v.line);
                }
                let test = call("__vr_case", vec![e(ExprKind::Var(tmp.clone()), v.line), self.expr(v)], v.line);
                cond = Some(match cond {
                    None => test,
                    Some(c) => e(ExprKind::Binary(BinOp::OrOr, Box::new(c), Box::new(test)), v.line),
                });
            }
            let then = block(self.stmts(body), label.line);
            tail = Some(e(ExprKind::If { cond: Box::new(cond.expect("a case has a label")), then: Box::new(then), els: tail.map(Box::new) }, label.line));
        }
        if let Some(t) = tail {
            items.push(t);
        }
        block(items, line)
    }

    // ----- expressions -----

    /// An argument of a call (not an index): `:` and `end` have no meaning there.
    fn call_arg(&mut self, a: &MExpr) -> Expr {
        match a.kind {
            MExprKind::Colon => unsupported("`:` as a function argument", a.line),
            _ => self.expr(a),
        }
    }

    fn index(&mut self, name: &str, args: &[MExpr], line: Line) -> Expr {
        let n = args.len();
        let indices = args
            .iter()
            .enumerate()
            .map(|(k, a)| match a.kind {
                MExprKind::Colon => None,
                _ => {
                    let x = self.index_expr(a, name, k + 1, n);
                    Some(if self.is_integral(a) { call("__vr_integral", vec![x], a.line) } else { x })
                }
            })
            .collect();
        e(ExprKind::Index { target: Box::new(e(ExprKind::Var(name.into()), line)), indices, double: false }, line)
    }

    /// An index expression of `name(...)`, position `k` of `n`: `end` is known there.
    fn index_expr(&mut self, a: &MExpr, name: &str, k: usize, n: usize) -> Expr {
        let saved = self.end_of.replace((name.to_string(), k, n));
        let x = self.expr(a);
        self.end_of = saved;
        x
    }

    /// Is `a`, as an index, a whole number by construction?
    fn is_integral(&self, a: &MExpr) -> bool {
        match &a.kind {
            MExprKind::Num(v) => v.fract() == 0.0,
            MExprKind::End => true,
            MExprKind::Ident(n) => self.integral.contains(n),
            MExprKind::Unary("-" | "+", x) => self.is_integral(x),
            MExprKind::Binary("+" | "-" | "*" | ".*", x, y) => self.is_integral(x) && self.is_integral(y),
            _ => false,
        }
    }

    fn expr(&mut self, x: &MExpr) -> Expr {
        let line = x.line;
        match &x.kind {
            MExprKind::Num(v) => e(ExprKind::Double(*v), line),
            MExprKind::Imag(v) => e(ExprKind::Imaginary(*v), line),
            MExprKind::Str(s) => e(ExprKind::Str(s.clone()), line),
            MExprKind::Ident(n) if self.loop_counters.contains(n) => call("__vr_loopvar", vec![e(ExprKind::Var(n.clone()), line)], line),
            MExprKind::Ident(n) if self.vars.contains(n) => e(ExprKind::Var(n.clone()), line),
            MExprKind::Ident(n) if n == "nargout" => e(ExprKind::Double(self.nargout as f64), line),
            MExprKind::Ident(n) => match self.outputs.get(n) {
                Some(0) => unsupported(&format!("the value of `{n}()`, which has no outputs"), line),
                Some(&k) => call(&variant(n, 1, k), vec![], line),
                None => call(n, vec![], line),
            },
            MExprKind::Colon => unsupported("`:` outside an index", line),
            MExprKind::End => match &self.end_of {
                Some((name, k, n)) => call("__vr_end", vec![e(ExprKind::Var(name.clone()), line), e(ExprKind::Double(*k as f64), line), e(ExprKind::Double(*n as f64), line)], line),
                None => unsupported("`end` inside a call's arguments (not an index)", line),
            },
            MExprKind::Unary(op, a) => {
                let a = Box::new(self.expr(a));
                let op = match *op {
                    "-" => UnOp::Neg,
                    "+" => UnOp::Plus,
                    _ => UnOp::Not,
                };
                e(ExprKind::Unary(op, a), line)
            }
            MExprKind::Binary(op, a, b) => {
                let (la, lb) = (self.expr(a), self.expr(b));
                let bin = |op: BinOp| e(ExprKind::Binary(op, Box::new(la.clone()), Box::new(lb.clone())), line);
                match *op {
                    "+" => bin(BinOp::Add),
                    "-" => bin(BinOp::Sub),
                    ".*" => bin(BinOp::Mul),
                    "./" => bin(BinOp::Div),
                    ".^" => bin(BinOp::Pow),
                    "*" => bin(BinOp::MatMul),
                    "<" => bin(BinOp::Lt),
                    "<=" => bin(BinOp::Le),
                    ">" => bin(BinOp::Gt),
                    ">=" => bin(BinOp::Ge),
                    "==" => bin(BinOp::Eq),
                    "~=" => bin(BinOp::Ne),
                    "&" => bin(BinOp::And),
                    "|" => bin(BinOp::Or),
                    "&&" => bin(BinOp::AndAnd),
                    "||" => bin(BinOp::OrOr),
                    "/" => call("mrdivide", vec![la, lb], line),
                    "\\" => call("mldivide", vec![la, lb], line),
                    ".\\" => call("ldivide", vec![la, lb], line),
                    "^" => call("mpower", vec![la, lb], line),
                    other => unsupported(&format!("operator `{other}`"), line),
                }
            }
            MExprKind::Postfix(op, a) => call(if *op == "'" { "ctranspose" } else { "transpose" }, vec![self.expr(a)], line),
            MExprKind::Range { start, step, stop } => {
                let mut args = vec![self.expr(start)];
                if let Some(s) = step {
                    args.push(self.expr(s));
                }
                args.push(self.expr(stop));
                call("colon", args, line)
            }
            MExprKind::Apply(t, args) => match &t.kind {
                MExprKind::Ident(n) if self.vars.contains(n) => self.index(n, args, line),
                MExprKind::Ident(n) => {
                    let hir_args = args.iter().map(|a| self.call_arg(a)).collect();
                    match self.outputs.get(n) {
                        Some(0) => unsupported(&format!("the value of `{n}(...)`, which has no outputs"), line),
                        Some(&k) => call(&variant(n, 1, k), hir_args, line),
                        None => self.builtin_call(n, hir_args, line),
                    }
                }
                _ => unsupported("indexing the value of an expression", line),
            },
            MExprKind::Matrix(rows) => {
                if rows.is_empty() {
                    return call("zeros", vec![e(ExprKind::Double(0.0), line), e(ExprKind::Double(0.0), line)], line);
                }
                let rows: Vec<Expr> = rows.iter().map(|r| call("horzcat", r.iter().map(|a| self.expr(a)).collect(), line)).collect();
                if rows.len() == 1 {
                    rows.into_iter().next().expect("one row")
                } else {
                    call("vertcat", rows, line)
                }
            }
            MExprKind::Handle(n) => unsupported(&format!("the function handle `@{n}`"), line),
            MExprKind::Cell(_) => unsupported("a cell array `{...}`", line),
            MExprKind::Unsupported(w) => unsupported(w, line),
        }
    }

    /// A builtin call; `error(id, message)` drops the identifier (compiled errors carry
    /// one message).
    fn builtin_call(&mut self, name: &str, args: Vec<Expr>, line: Line) -> Expr {
        if name == "error" {
            if let [Expr { kind: ExprKind::Str(id), .. }, Expr { kind: ExprKind::Str(_), .. }] = args.as_slice() {
                if id.contains(':') && !id.contains(' ') {
                    return call(name, args[1..].to_vec(), line);
                }
            }
        }
        call(name, args, line)
    }
}

/// Every statement of `all` outside the statement list `inner` (a loop's body), each
/// without its nested bodies.
fn outside_of(all: &[Stmt], inner: &[Stmt], out: &mut Vec<Stmt>) {
    if std::ptr::eq(all.as_ptr(), inner.as_ptr()) {
        return;
    }
    for s in all {
        out.push(strip_bodies(s));
        match &s.kind {
            StmtKind::If { clauses, els } => {
                for (_, b) in clauses {
                    outside_of(b, inner, out);
                }
                if let Some(b) = els {
                    outside_of(b, inner, out);
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoUntil { body, .. } => outside_of(body, inner, out),
            StmtKind::Switch { cases, otherwise, .. } => {
                for (_, b) in cases {
                    outside_of(b, inner, out);
                }
                if let Some(b) = otherwise {
                    outside_of(b, inner, out);
                }
            }
            _ => {}
        }
    }
}

/// A statement without its nested bodies (for "mentioned outside this loop").
fn strip_bodies(s: &Stmt) -> Stmt {
    let kind = match &s.kind {
        StmtKind::If { clauses, .. } => StmtKind::If { clauses: clauses.iter().map(|(c, _)| (c.clone(), vec![])).collect(), els: None },
        StmtKind::For { var, range, parallel, .. } => StmtKind::For { var: var.clone(), range: range.clone(), body: vec![], parallel: *parallel },
        StmtKind::While { cond, .. } => StmtKind::While { cond: cond.clone(), body: vec![] },
        StmtKind::DoUntil { cond, .. } => StmtKind::DoUntil { cond: cond.clone(), body: vec![] },
        StmtKind::Switch { subject, cases, .. } => StmtKind::Switch { subject: subject.clone(), cases: cases.iter().map(|(c, _)| (c.clone(), vec![])).collect(), otherwise: None },
        other => other.clone(),
    };
    Stmt { kind, line: s.line }
}

/// The names `x` applies arguments to (`x(...)`) anywhere in `e`.
fn apply_targets(e: &MExpr, out: &mut HashSet<String>) {
    match &e.kind {
        MExprKind::Apply(t, args) => {
            if let MExprKind::Ident(n) = &t.kind {
                out.insert(n.clone());
            }
            apply_targets(t, out);
            args.iter().for_each(|a| apply_targets(a, out));
        }
        MExprKind::Unary(_, a) | MExprKind::Postfix(_, a) => apply_targets(a, out),
        MExprKind::Binary(_, a, b) => {
            apply_targets(a, out);
            apply_targets(b, out);
        }
        MExprKind::Range { start, step, stop } => {
            apply_targets(start, out);
            if let Some(s) = step {
                apply_targets(s, out);
            }
            apply_targets(stop, out);
        }
        MExprKind::Matrix(rows) | MExprKind::Cell(rows) => rows.iter().flatten().for_each(|a| apply_targets(a, out)),
        _ => {}
    }
}

/// Is `e` a count: `numel(x)`, `length(x)`, `rows(A)`, `columns(A)`, `size(A, k)`?
fn is_count_call(e: &MExpr) -> bool {
    match &e.kind {
        MExprKind::Apply(t, args) => match (&t.kind, args.as_slice()) {
            (MExprKind::Ident(f), [_]) => matches!(f.as_str(), "numel" | "length" | "rows" | "columns"),
            (MExprKind::Ident(f), [_, k]) => f == "size" && matches!(k.kind, MExprKind::Num(v) if v >= 1.0 && v.fract() == 0.0),
            _ => false,
        },
        _ => false,
    }
}

/// Is `e` `size(A)`?
fn is_size_call(e: &MExpr) -> bool {
    matches!(&e.kind, MExprKind::Apply(t, args) if args.len() == 1 && matches!(&t.kind, MExprKind::Ident(f) if f == "size"))
}

/// Is `e` an empty array to grow from (`[]`, `zeros(0, 1)`, `zeros(1, 0)`)?
fn starts_empty(e: &MExpr) -> bool {
    match &e.kind {
        MExprKind::Matrix(rows) => rows.is_empty(),
        MExprKind::Apply(t, args) => {
            matches!(&t.kind, MExprKind::Ident(f) if matches!(f.as_str(), "zeros" | "ones" | "false" | "true"))
                && args.iter().any(|a| matches!(a.kind, MExprKind::Num(v) if v == 0.0))
        }
        _ => false,
    }
}

/// Does an index name a position past the end (`end + k`)?
fn past_end(a: &MExpr) -> bool {
    match &a.kind {
        MExprKind::Binary("+", x, y) => matches!(x.kind, MExprKind::End) || matches!(y.kind, MExprKind::End) || past_end(x) || past_end(y),
        _ => false,
    }
}

/// `name()` or `name` as a statement of its own (`gpu_begin();`).
fn is_marker_call(s: &Stmt, name: &str) -> bool {
    let StmtKind::Expr { e: x, .. } = &s.kind else { return false };
    match &x.kind {
        MExprKind::Ident(n) => n == name,
        MExprKind::Apply(t, args) => args.is_empty() && matches!(&t.kind, MExprKind::Ident(n) if n == name),
        _ => false,
    }
}
