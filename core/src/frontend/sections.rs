//! Sections: the parts of a function that compile when the whole function does not (the
//! seeds' McVM integration compiles "only the suitable numerical sections"; Numba calls
//! it loop-lifting). A host adapter asks `analyze` for a function's sections, runs the
//! function in its own interpreter with each section replaced by a call of the
//! section's compiled function, and compiles each section with `outline` as a function
//! of its own: the variables it reads as parameters, those it writes (and that the rest
//! of the function may read) as results.
//!
//! A section is a maximal run of consecutive statements of one block that pass a
//! syntactic screen (every call is a builtin the language compiles, a marker or a
//! function of the source; no construct the parser marks unsupported; no `return`; no
//! `break`/`next` that would leave the run; strings only as `stop` messages) and that
//! holds at least one loop (a run without a loop is not worth a call). Blocks are the
//! function's body and, recursively, the bodies of `if`/`for`/`while`/`repeat`
//! statements that are not in a run themselves. Passing the screen does not promise
//! that a section compiles: its types decide that at each call, and a section that
//! does not compile runs in the host.
//!
//! Positions are paths of `[[` indices into the host's language object (R: `body(f)[[c(3,
//! 4)]]`): a block's statement k (0-based) is `[[k + 2]]` (`[[1]]` is `{`), a `for`
//! body `[[4]]`, a `while` body `[[3]]`, a `repeat` body `[[2]]`, an `if`'s branches
//! `[[3]]` and `[[4]]`. The HIR keeps every line, so an outlined section reports the
//! user's lines.

use super::hir::{Arg, Expr, ExprKind, FunctionDef, Line, Param};
use super::infer::Program;
use super::lower::Lowerer;
use super::rules::{Language, Marker};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

/// One run of statements that may compile on its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// 1-based, in the order of the source.
    pub number: usize,
    /// The `[[` path of its first statement from the function's body (empty: the body
    /// itself, when it is a single statement).
    pub path: Vec<u32>,
    /// Statements in the run (consecutive in their block; 1 when the path names a
    /// statement that is not in a block).
    pub count: usize,
    pub first_line: Line,
    pub last_line: Line,
    /// Variables of the function the run reads before writing them on some path, and
    /// those it writes that must keep their value when it does not write them: the
    /// compiled section's parameters, in order of first use.
    pub inputs: Vec<String>,
    /// Variables the run assigns that the rest of the function may read (or that the
    /// run reads again when an enclosing loop repeats it): the section's results.
    pub outputs: Vec<String>,
    /// The outputs the run may leave unassigned without reading them first (the last
    /// inputs): inputs only so that they keep their value. Where the host has none for
    /// them yet, it uses the section without them (`outline(.., fresh = true)`); a path
    /// that then leaves one unassigned is a run-time error (an unassigned variable), on
    /// which the host runs the statements itself.
    pub keep: Vec<String>,
    /// Whether the run sits inside a loop of the function (the host calls it each turn).
    pub in_loop: bool,
}

/// What runs where, for a report: one note per statement or run of statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub first_line: Line,
    pub last_line: Line,
    /// Nesting: 0 for statements of the body, 1 inside their blocks, ...
    pub depth: u32,
    pub kind: NoteKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NoteKind {
    /// Compiled as section `number`.
    Section(usize),
    /// Runs in the host: `construct` (at `line`) does not compile.
    Excluded { construct: String, line: Line },
    /// Runs in the host: statements that compile but hold no loop.
    NoLoop,
    /// Runs in the host: the function's value (a section would lose it).
    Value,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub sections: Vec<Section>,
    /// In source order.
    pub notes: Vec<Note>,
}

/// Calls that read or write a function's variables by name, behind the analysis's back
/// (R: `get("s")`, `environment()`, `ls()`): where one occurs, every variable a section
/// assigns is a result.
const DYNAMIC_ACCESS: &[&str] = &[
    "get",
    "get0",
    "mget",
    "exists",
    "assign",
    "rm",
    "eval",
    "evalq",
    "environment",
    "sys.frame",
    "sys.frames",
    "sys.function",
    "parent.frame",
    "ls",
    "objects",
    "local",
    "with",
    "within",
    "browser",
    "list2env",
    "as.environment",
    "do.call",
    "match.arg",
    "delayedAssign",
    "makeActiveBinding",
];

/// The sections of `def`, the function `name` of `prog` (its program name: calls in it
/// reach the functions defined inside it through that scope).
pub fn analyze(prog: &Program, name: &str, def: &FunctionDef) -> Analysis {
    let mut locals: HashSet<String> = def.params.iter().map(|p| p.name.clone()).collect();
    collect_locals(&def.body, &mut locals);
    let mut a = Analyzer {
        prog,
        scope: name,
        lang: prog.lang,
        defs: prog.defs.keys().cloned().collect(),
        locals,
        known: RefCell::new(HashMap::new()),
        iterating: RefCell::new(HashMap::new()),
        runs: Vec::new(),
        notes: Vec::new(),
    };
    a.container(&def.body, Vec::new(), true, false, 0);
    let mut dynamic = false;
    uses_dynamic_access(&def.body, &mut dynamic);
    for p in &def.params {
        if let Some(d) = &p.default {
            uses_dynamic_access(d, &mut dynamic);
        }
    }
    // Variables a function defined inside reads (when it runs is unknown) and, with
    // dynamic access, all of them: live everywhere.
    let mut always = HashSet::new();
    if dynamic {
        always.extend(a.locals.iter().cloned());
    }
    closure_reads(prog, &def.body, &mut always, &mut HashSet::new());
    // Functions defined inside were lifted (`frontend::lift`): what they read of this
    // function's variables is their captures (nested ones forward theirs through them).
    for l in prog.closures.lifted.values().filter(|l| l.parent == name) {
        always.extend(l.captures.iter().cloned());
    }
    let lasts: Vec<Vec<u32>> = a
        .runs
        .iter()
        .map(|r| {
            let mut p = r.path.clone();
            if let Some(k) = p.last_mut() {
                *k += r.count as u32 - 1;
            }
            p
        })
        .collect();
    let marker = |name: &str| a.marker(name);
    let live_after = Live::after(&def.body, &lasts, always, &marker);
    let mut sections = Vec::new();
    for (k, run) in a.runs.iter().enumerate() {
        let stmts = run_at(&def.body, &run.path, run.count).expect("a run's path names its statements");
        let mut flow = Flow { locals: &a.locals, marker: &marker, captures: &|e: &Expr| a.captures_of(e), inputs: Vec::new(), assigned: Vec::new() };
        let exit = flow.block(&stmts, Some(BTreeSet::new()));
        let mut inputs = flow.inputs.clone();
        let mut outputs = Vec::new();
        let mut keep = Vec::new();
        for v in &flow.assigned {
            if live_after[k].contains(v) {
                outputs.push(v.clone());
                // Not assigned on every path through the run: the section starts from
                // the variable's current value.
                if exit.as_ref().is_some_and(|d| !d.contains(v)) && !inputs.contains(v) {
                    keep.push(v.clone());
                }
            }
        }
        inputs.extend(keep.iter().cloned());
        sections.push(Section {
            number: k + 1,
            path: run.path.clone(),
            count: run.count,
            first_line: stmts.iter().map(first_line).min().unwrap_or(0),
            last_line: stmts.iter().map(last_line).max().unwrap_or(0),
            inputs,
            outputs,
            keep,
            in_loop: run.in_loop,
        });
    }
    let mut notes = a.notes;
    // Source order, enclosing statements before what they hold.
    notes.sort_by_key(|n| (n.first_line, n.depth));
    Analysis { sections, notes }
}

/// Section `number` of `def` as a function of its own: its inputs as parameters (without
/// those it only keeps when `fresh`, see `Section::keep`), its statements (with their
/// lines), and its outputs as the value (one variable, a call of `results` (the
/// language's spelling of `Marker::Results`, R's `.vr_results`) for several, nothing for
/// none).
pub fn outline(prog: &Program, name: &str, def: &FunctionDef, number: usize, results: &str, fresh: bool) -> Option<FunctionDef> {
    let analysis = analyze(prog, name, def);
    let s = analysis.sections.iter().find(|s| s.number == number)?;
    let mut stmts = run_at(&def.body, &s.path, s.count)?;
    let line = s.last_line;
    let var = |n: &String| Expr::new(ExprKind::Var(n.clone()), line);
    stmts.push(match s.outputs.as_slice() {
        [] => Expr::new(ExprKind::Block(Vec::new()), line),
        [one] => var(one),
        several => Expr::new(ExprKind::Call { func: results.into(), args: several.iter().map(|n| Arg { name: None, value: var(n) }).collect() }, line),
    });
    Some(FunctionDef {
        params: s.inputs.iter().filter(|n| !(fresh && s.keep.contains(n))).map(|n| Param { name: n.clone(), default: None }).collect(),
        body: Box::new(Expr::new(ExprKind::Block(stmts), s.first_line)),
    })
}

/// Whether the language's library answers a call of `name` at all (with any
/// arguments): the rule table is asked on a scratch function, so that every builtin it
/// gains is known here without a list to keep in step. Refusals the language knows by
/// name (R's `cat`) are the rule table's to exclude (`Language::compiles_call`).
pub fn dispatches(lang: &'static dyn Language, name: &str) -> bool {
    let mut p = Program::new(lang);
    let probe = "_probe";
    p.defs.insert(probe.into(), FunctionDef { params: Vec::new(), body: Box::new(Expr::new(ExprKind::Block(Vec::new()), 1)) });
    let spec = p.spec_for(probe, Vec::new());
    let mut lw = Lowerer::new(&mut p, spec, false);
    lang.builtin(&mut lw, name, &[], 1).is_some()
}

/// A candidate run while the analysis walks the blocks.
struct Run {
    path: Vec<u32>,
    count: usize,
    in_loop: bool,
}

struct Analyzer<'p> {
    prog: &'p Program,
    /// The program name of the function analysed.
    scope: &'p str,
    lang: &'static dyn Language,
    defs: HashSet<String>,
    locals: HashSet<String>,
    known: RefCell<HashMap<String, bool>>,
    /// Program functions by whether a call of them iterates (`iterates`).
    iterating: RefCell<HashMap<String, bool>>,
    runs: Vec<Run>,
    notes: Vec<Note>,
}

/// The first construct that keeps a statement out of every section, and its line.
struct Exclusion {
    construct: String,
    line: Line,
}

fn is_loop(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::Repeat(_))
}

impl Analyzer<'_> {
    /// Whether a call of program function `target` repeats work: its body holds a loop,
    /// calls a functional the language compiles into one (`Language::iterates`), or
    /// calls a function that does, itself included (recursion, R's `Recall`). Such a
    /// call is worth a compiled section as a loop is (`run(data)` calling a kernel).
    fn iterates(&self, target: &str) -> bool {
        if let Some(k) = self.iterating.borrow().get(target) {
            return *k;
        }
        // A cycle back to `target` is recursion: it iterates.
        self.iterating.borrow_mut().insert(target.to_string(), true);
        let k = self.prog.defs.get(target).is_some_and(|def| {
            let mut found = false;
            let mut check = |x: &Expr| {
                if found {
                    return;
                }
                found = match &x.kind {
                    ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::Repeat(_) => true,
                    ExprKind::Call { func, .. } => match self.prog.resolve_function(target, func) {
                        Some(callee) => self.iterates(&callee),
                        None => self.lang.is_recall(func) || self.lang.iterates(func),
                    },
                    ExprKind::LocalFunction { lifted, .. } => self.iterates(lifted),
                    _ => false,
                };
            };
            check(&def.body);
            visit(&def.body, &mut check);
            for d in def.params.iter().filter_map(|p| p.default.as_ref()) {
                check(d);
                visit(d, &mut check);
            }
            found
        });
        self.iterating.borrow_mut().insert(target.to_string(), k);
        k
    }

    /// The variables of this function a call in `e` (of a function defined inside it,
    /// or such a function given as a value) reads: its captures.
    fn captures_of(&self, e: &Expr) -> Vec<String> {
        let lifted = match &e.kind {
            ExprKind::Call { func, .. } if !self.locals.contains(func) => self.prog.closures.resolve(self.scope, func),
            ExprKind::LocalFunction { lifted, .. } => Some(lifted.clone()),
            _ => None,
        };
        lifted.and_then(|l| self.prog.closures.lifted.get(&l)).map(|l| l.captures.clone()).unwrap_or_default()
    }

    /// Screen a call's arguments: a function defined inside this one given as a value
    /// (`sapply(x, function(v) ...)`) passes (the section passes its captures, which are
    /// its inputs) and iterates when its body does.
    fn screen_args(&self, args: &[Arg], loops: u32) -> Result<bool, Exclusion> {
        let mut any = false;
        for a in args {
            any |= match &a.value.kind {
                ExprKind::LocalFunction { lifted, .. } => self.iterates(lifted),
                _ => self.screen(&a.value, loops)?,
            };
        }
        Ok(any)
    }

    /// The marker `name` is, unless the source defines a function of that name.
    fn marker(&self, name: &str) -> Option<Marker> {
        if self.defs.contains(name) {
            None
        } else {
            self.lang.marker(name)
        }
    }

    fn compiles_call(&self, name: &str) -> bool {
        if let Some(k) = self.known.borrow().get(name) {
            return *k;
        }
        let k = self.lang.compiles_call(name);
        self.known.borrow_mut().insert(name.to_string(), k);
        k
    }

    /// Screen `e`: Ok(whether it holds a loop) or the construct that excludes it.
    /// `loops`: enclosing loops inside the statement being screened.
    fn screen(&self, e: &Expr, loops: u32) -> Result<bool, Exclusion> {
        let no = |construct: String| Err(Exclusion { construct, line: e.line });
        let all = |items: &mut dyn Iterator<Item = &Expr>, loops: u32| -> Result<bool, Exclusion> {
            let mut any = false;
            for i in items {
                any |= self.screen(i, loops)?;
            }
            Ok(any)
        };
        match &e.kind {
            ExprKind::Double(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Imaginary(_) | ExprKind::Missing(_) => Ok(false),
            ExprKind::Null => no("NULL".into()),
            ExprKind::Str(_) => no("a string".into()),
            ExprKind::Var(n) if n == "..." || (n.starts_with("..") && n[2..].parse::<u32>().is_ok()) => no(format!("`{n}`")),
            ExprKind::Var(_) => Ok(false),
            ExprKind::Unary(_, a) => self.screen(a, loops),
            ExprKind::Binary(_, a, b) => Ok(self.screen(a, loops)? | self.screen(b, loops)?),
            ExprKind::Call { func, args } => {
                let values = &mut args.iter().map(|a| &a.value);
                if self.locals.contains(func) {
                    return no(format!("call of the variable `{func}`"));
                }
                if let Some(target) = self.prog.resolve_function(self.scope, func) {
                    return Ok(self.screen_args(args, loops)? | self.iterates(&target));
                }
                if self.lang.is_recall(func) {
                    // In a section it would call the section, not the function.
                    return no(format!("`{func}`"));
                }
                match self.marker(func) {
                    Some(Marker::Return | Marker::Results) => no(format!("`{func}`")),
                    Some(Marker::Stop) => {
                        let mut any = false;
                        for a in args {
                            if !matches!(a.value.kind, ExprKind::Str(_) | ExprKind::Bool(_)) {
                                any |= self.screen(&a.value, loops)?;
                            }
                        }
                        Ok(any)
                    }
                    Some(Marker::Gpu | Marker::ParallelRange | Marker::Check) => all(values, loops),
                    // `list(a = ...)`: a list that stays inside the section compiles; one
                    // among its outputs does not (the section then runs in R).
                    Some(Marker::List) => all(values, loops),
                    // `for (nm in names(l))` compiles; `names(l)` as a value does not (the
                    // section then runs in R).
                    Some(Marker::Names) => all(values, loops),
                    None if self.compiles_call(func) => Ok(self.screen_args(args, loops)? | self.lang.iterates(func)),
                    None => no(format!("call to `{func}`")),
                }
            }
            ExprKind::CallExpr { .. } => no("call of a computed function".into()),
            ExprKind::Index { target, indices, .. } => Ok(self.screen(target, loops)? | all(&mut indices.iter().flatten(), loops)?),
            // A list's element (`data$x`): the list is an input like any variable.
            ExprKind::Field { target, .. } => self.screen(target, loops),
            ExprKind::Function(_) => no("function definition".into()),
            // Julia's multiple assignment: no section analysis for it (R has none).
            ExprKind::Tuple(_) => no("a tuple".into()),
            // MATLAB's `[a, b] = f(x)`: likewise.
            ExprKind::MultiAssign { .. } => no("a multiple assignment".into()),
            // A definition runs in the host, which calls the function later; as a call's
            // argument it is screened by `screen_args`.
            ExprKind::LocalFunction { name, .. } => no(format!("definition of function `{name}`")),
            ExprKind::Block(items) => all(&mut items.iter(), loops),
            ExprKind::If { cond, then, els } => Ok(self.screen(cond, loops)? | self.screen(then, loops)? | all(&mut els.iter().map(|b| &**b), loops)?),
            ExprKind::For { seq, body, .. } => {
                self.screen(seq, loops)?;
                self.screen(body, loops + 1)?;
                Ok(true)
            }
            ExprKind::While { cond, body } => {
                self.screen(cond, loops)?;
                self.screen(body, loops + 1)?;
                Ok(true)
            }
            ExprKind::Repeat(body) => {
                self.screen(body, loops + 1)?;
                Ok(true)
            }
            ExprKind::Break if loops == 0 => no("`break` out of the section".into()),
            ExprKind::Next if loops == 0 => no("`next` out of the section".into()),
            ExprKind::Break | ExprKind::Next => Ok(false),
            ExprKind::Assign { target, value } => {
                let t = match &target.kind {
                    ExprKind::Var(_) => false,
                    ExprKind::Index { target: base, indices, .. } if matches!(base.kind, ExprKind::Var(_)) => all(&mut indices.iter().flatten(), loops)?,
                    ExprKind::Call { func, .. } => return no(format!("replacement function `{func}<-`")),
                    // A list output would have to come back as a list: R runs these.
                    ExprKind::Field { .. } => return no("assignment into a list element (`$<-`)".into()),
                    ExprKind::Unsupported(what) => return no(what.clone()),
                    _ => return no("assignment into an expression".into()),
                };
                Ok(t | self.screen(value, loops)?)
            }
            ExprKind::Unsupported(what) => no(what.clone()),
        }
    }

    /// The statements of a block (or a single statement in its place) at `path`.
    fn container(&mut self, e: &Expr, path: Vec<u32>, tail: bool, in_loop: bool, depth: u32) {
        let stmts: Vec<(&Expr, Vec<u32>)> = match &e.kind {
            ExprKind::Block(items) => items
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    let mut p = path.clone();
                    p.push(k as u32 + 2);
                    (s, p)
                })
                .collect(),
            _ => vec![(e, path)],
        };
        let n = stmts.len();
        // (statement, path, holds a loop) of the pending run.
        let mut run: Vec<(&Expr, Vec<u32>, bool)> = Vec::new();
        for (k, (s, p)) in stmts.into_iter().enumerate() {
            let is_tail = tail && k + 1 == n;
            match self.screen(s, 0) {
                Ok(has_loop) if !is_tail || is_loop(s) => run.push((s, p, has_loop)),
                Ok(_) => {
                    self.flush(&mut run, in_loop, depth);
                    self.notes.push(Note { first_line: first_line(s), last_line: last_line(s), depth, kind: NoteKind::Value });
                    // A value-producing `if` or block may still hold loops worth a section.
                    self.inside(s, &p, true, in_loop, depth);
                }
                Err(x) => {
                    self.flush(&mut run, in_loop, depth);
                    self.notes.push(Note {
                        first_line: first_line(s),
                        last_line: last_line(s),
                        depth,
                        kind: NoteKind::Excluded { construct: x.construct, line: x.line },
                    });
                    self.inside(s, &p, is_tail, in_loop, depth);
                }
            }
        }
        self.flush(&mut run, in_loop, depth);
    }

    /// The blocks inside a statement that runs in the host.
    fn inside(&mut self, s: &Expr, p: &[u32], tail: bool, in_loop: bool, depth: u32) {
        let at = |k: u32| {
            let mut q = p.to_vec();
            q.push(k);
            q
        };
        match &s.kind {
            ExprKind::For { body, .. } => self.container(body, at(4), false, true, depth + 1),
            ExprKind::While { body, .. } => self.container(body, at(3), false, true, depth + 1),
            ExprKind::Repeat(body) => self.container(body, at(2), false, true, depth + 1),
            ExprKind::If { then, els, .. } => {
                self.container(then, at(3), tail, in_loop, depth + 1);
                if let Some(e) = els {
                    self.container(e, at(4), tail, in_loop, depth + 1);
                }
            }
            ExprKind::Block(_) => self.container(s, p.to_vec(), tail, in_loop, depth + 1),
            _ => {}
        }
    }

    /// End the pending run: a section when it holds a loop.
    fn flush(&mut self, run: &mut Vec<(&Expr, Vec<u32>, bool)>, in_loop: bool, depth: u32) {
        if run.is_empty() {
            return;
        }
        let first = run.iter().map(|(s, _, _)| first_line(s)).min().unwrap_or(0);
        let last = run.iter().map(|(s, _, _)| last_line(s)).max().unwrap_or(0);
        let kind = if run.iter().any(|(_, _, l)| *l) {
            self.runs.push(Run { path: run[0].1.clone(), count: run.len(), in_loop });
            NoteKind::Section(self.runs.len())
        } else {
            NoteKind::NoLoop
        };
        self.notes.push(Note { first_line: first, last_line: last, depth, kind });
        run.clear();
    }
}

/// The statement at `path` (see the module's comment), if there is one.
fn at_path<'e>(body: &'e Expr, path: &[u32]) -> Option<&'e Expr> {
    let mut e = body;
    for &k in path {
        e = match (&e.kind, k) {
            (ExprKind::Block(items), k) if k >= 2 => items.get(k as usize - 2)?,
            (ExprKind::For { body, .. }, 4) => body,
            (ExprKind::While { body, .. }, 3) => body,
            (ExprKind::Repeat(body), 2) => body,
            (ExprKind::If { then, .. }, 3) => then,
            (ExprKind::If { els: Some(els), .. }, 4) => els,
            _ => return None,
        };
    }
    Some(e)
}

/// The `count` statements of a run starting at `path`.
pub fn run_at(body: &Expr, path: &[u32], count: usize) -> Option<Vec<Expr>> {
    let Some((&k, parent_path)) = path.split_last() else {
        return (count == 1).then(|| vec![body.clone()]);
    };
    let parent = at_path(body, parent_path)?;
    match &parent.kind {
        ExprKind::Block(items) if k >= 2 => items.get(k as usize - 2..k as usize - 2 + count).map(|s| s.to_vec()),
        _ if count == 1 => at_path(parent, &[k]).map(|e| vec![e.clone()]),
        _ => None,
    }
}

fn first_line(e: &Expr) -> Line {
    // An assignment's line is its operator's; its target may start earlier.
    match &e.kind {
        ExprKind::Assign { target, .. } => e.line.min(first_line(target)),
        ExprKind::Binary(_, a, _) => e.line.min(first_line(a)),
        ExprKind::Index { target, .. } => e.line.min(first_line(target)),
        _ => e.line,
    }
}

/// The last line any part of `e` is on (a closing brace alone on a line is not seen).
pub fn last_line(e: &Expr) -> Line {
    let mut m = e.line;
    visit(e, &mut |x| m = m.max(x.line));
    m
}

/// Call `f` on every expression inside `e` (not `e` itself), functions' bodies included.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let go = |x: &Expr, f: &mut dyn FnMut(&Expr)| {
        f(x);
        visit(x, f);
    };
    match &e.kind {
        ExprKind::Unary(_, a) => go(a, f),
        ExprKind::Binary(_, a, b) => {
            go(a, f);
            go(b, f);
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| go(&a.value, f)),
        ExprKind::CallExpr { callee, args } => {
            go(callee, f);
            args.iter().for_each(|a| go(&a.value, f));
        }
        ExprKind::Index { target, indices, .. } => {
            go(target, f);
            indices.iter().flatten().for_each(|i| go(i, f));
        }
        ExprKind::Field { target, .. } => go(target, f),
        ExprKind::Function(def) => {
            def.params.iter().filter_map(|p| p.default.as_ref()).for_each(|d| go(d, f));
            go(&def.body, f);
        }
        ExprKind::Block(items) => items.iter().for_each(|i| go(i, f)),
        ExprKind::If { cond, then, els } => {
            go(cond, f);
            go(then, f);
            if let Some(e) = els {
                go(e, f);
            }
        }
        ExprKind::For { seq, body, .. } => {
            go(seq, f);
            go(body, f);
        }
        ExprKind::While { cond, body } => {
            go(cond, f);
            go(body, f);
        }
        ExprKind::Repeat(body) => go(body, f),
        ExprKind::Assign { target, value } => {
            go(target, f);
            go(value, f);
        }
        _ => {}
    }
}

/// Every name the function assigns (`x <- v`, `x[i] <- v`, `for (x in s)`), outside
/// functions defined in it.
fn collect_locals(e: &Expr, out: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Function(_) => return,
        ExprKind::Assign { target, .. } => {
            let mut t = &**target;
            loop {
                match &t.kind {
                    ExprKind::Var(n) => {
                        out.insert(n.clone());
                        break;
                    }
                    ExprKind::Index { target, .. } | ExprKind::Field { target, .. } => t = target,
                    // `names(x) <- v` assigns x.
                    ExprKind::Call { args, .. } if !args.is_empty() => t = &args[0].value,
                    _ => break,
                }
            }
        }
        ExprKind::For { var, .. } => {
            out.insert(var.clone());
        }
        _ => {}
    }
    let mut children = Vec::new();
    visit_children(e, &mut children);
    for c in children {
        collect_locals(c, out);
    }
}

fn visit_children<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Unary(_, a) => out.push(a),
        ExprKind::Binary(_, a, b) => out.extend([&**a, &**b]),
        ExprKind::Call { args, .. } => out.extend(args.iter().map(|a| &a.value)),
        ExprKind::CallExpr { callee, args } => {
            out.push(callee);
            out.extend(args.iter().map(|a| &a.value));
        }
        ExprKind::Index { target, indices, .. } => {
            out.push(target);
            out.extend(indices.iter().flatten());
        }
        ExprKind::Field { target, .. } => out.push(target),
        ExprKind::Block(items) => out.extend(items.iter()),
        ExprKind::If { cond, then, els } => {
            out.extend([&**cond, &**then]);
            out.extend(els.iter().map(|b| &**b));
        }
        ExprKind::For { seq, body, .. } => out.extend([&**seq, &**body]),
        ExprKind::While { cond, body } => out.extend([&**cond, &**body]),
        ExprKind::Repeat(body) => out.push(body),
        ExprKind::Assign { target, value } => out.extend([&**target, &**value]),
        _ => {}
    }
}

fn uses_dynamic_access(e: &Expr, found: &mut bool) {
    let mut check = |x: &Expr| match &x.kind {
        ExprKind::Call { func, .. } if DYNAMIC_ACCESS.contains(&func.as_str()) => *found = true,
        ExprKind::CallExpr { .. } => *found = true,
        ExprKind::Var(n) if DYNAMIC_ACCESS.contains(&n.as_str()) => *found = true,
        _ => {}
    };
    check(e);
    visit(e, &mut check);
}

/// Every variable name in `e`. The target of an assignment inside `e` counts as read:
/// conservative (the callers only find more variables live, so more results).
fn all_reads(e: &Expr, out: &mut HashSet<String>) {
    let mut add = |x: &Expr| {
        if let ExprKind::Var(n) = &x.kind {
            out.insert(n.clone());
        }
    };
    add(e);
    visit(e, &mut add);
}

/// Every variable a function defined inside `e` reads (captured or its own).
fn closure_reads(prog: &Program, e: &Expr, out: &mut HashSet<String>, seen: &mut HashSet<String>) {
    let mut lifted = Vec::new();
    let mut found = |x: &Expr| match &x.kind {
        ExprKind::Function(def) => {
            all_reads(&def.body, out);
            def.params.iter().filter_map(|p| p.default.as_ref()).for_each(|d| all_reads(d, out));
        }
        // Lifting (frontend/lift.rs) moved the definition into a program function of its
        // own; its reads, and those of the functions it defines, are still this
        // function's variables when it runs (R's lexical scoping), so they stay live.
        ExprKind::LocalFunction { lifted: name, .. } => lifted.push(name.clone()),
        _ => {}
    };
    visit(e, &mut found);
    for name in lifted {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(def) = prog.defs.get(&name) {
            all_reads(&def.body, out);
            def.params.iter().filter_map(|p| p.default.as_ref()).for_each(|d| all_reads(d, out));
            closure_reads(prog, &def.body, out, seen);
        }
    }
}

/// Live variables, backwards over the structured body: what may be read after a point
/// before being assigned again. `after` answers it at the end of given statements.
struct Live<'m> {
    marker: &'m dyn Fn(&str) -> Option<Marker>,
    always: HashSet<String>,
    targets: HashMap<Vec<u32>, usize>,
    found: Vec<HashSet<String>>,
    /// Innermost loop last: live at its exit (`break`) and at its head (`next`).
    loops: Vec<(HashSet<String>, HashSet<String>)>,
}

impl Live<'_> {
    /// Live variables after each statement at `lasts` (paths as in the module's comment).
    fn after(body: &Expr, lasts: &[Vec<u32>], always: HashSet<String>, marker: &dyn Fn(&str) -> Option<Marker>) -> Vec<HashSet<String>> {
        let targets = lasts.iter().enumerate().map(|(k, p)| (p.clone(), k)).collect();
        let mut l = Live { marker, always: always.clone(), targets, found: vec![HashSet::new(); lasts.len()], loops: Vec::new() };
        l.stmt(body, &[], always);
        l.found
    }

    fn reads(&self, e: &Expr, mut s: HashSet<String>) -> HashSet<String> {
        all_reads(e, &mut s);
        s
    }

    fn kill(&self, s: &mut HashSet<String>, n: &str) {
        if !self.always.contains(n) {
            s.remove(n);
        }
    }

    /// Live before `e`, given live after it.
    fn stmt(&mut self, e: &Expr, path: &[u32], out: HashSet<String>) -> HashSet<String> {
        if let Some(&k) = self.targets.get(path) {
            // The last visit is the fixpoint's (loops iterate until nothing changes).
            self.found[k] = out.clone();
        }
        let at = |k: u32| {
            let mut p = path.to_vec();
            p.push(k);
            p
        };
        match &e.kind {
            ExprKind::Assign { target, value } => {
                let mut s = out;
                match &target.kind {
                    ExprKind::Var(n) => self.kill(&mut s, n),
                    _ => s = self.reads(target, s),
                }
                // `a <- b <- v`: v, then b, then a.
                if matches!(value.kind, ExprKind::Assign { .. }) {
                    self.stmt(value, &at(0), s)
                } else {
                    self.reads(value, s)
                }
            }
            ExprKind::Block(items) => {
                let mut s = out;
                for (k, item) in items.iter().enumerate().rev() {
                    s = self.stmt(item, &at(k as u32 + 2), s);
                }
                s
            }
            ExprKind::If { cond, then, els } => {
                let mut s = self.stmt(then, &at(3), out.clone());
                s.extend(match els {
                    Some(b) => self.stmt(b, &at(4), out),
                    None => out,
                });
                self.reads(cond, s)
            }
            ExprKind::For { var, seq, body } => {
                let mut head = out.clone();
                loop {
                    self.loops.push((out.clone(), head.clone()));
                    let mut b = self.stmt(body, &at(4), head.clone());
                    self.loops.pop();
                    self.kill(&mut b, var);
                    b.extend(out.iter().cloned());
                    if b == head {
                        break;
                    }
                    head = b;
                }
                self.reads(seq, head)
            }
            ExprKind::While { cond, body } => {
                let mut head = self.reads(cond, out.clone());
                loop {
                    self.loops.push((out.clone(), head.clone()));
                    let b = self.stmt(body, &at(3), head.clone());
                    self.loops.pop();
                    let next = self.reads(cond, b).union(&out).cloned().collect();
                    if next == head {
                        break;
                    }
                    head = next;
                }
                head
            }
            ExprKind::Repeat(body) => {
                let mut head = HashSet::new();
                loop {
                    self.loops.push((out.clone(), head.clone()));
                    let b = self.stmt(body, &at(2), head.clone());
                    self.loops.pop();
                    let next: HashSet<String> = b.union(&head).cloned().collect();
                    if next == head {
                        break;
                    }
                    head = next;
                }
                head
            }
            ExprKind::Break => self.loops.last().map_or(out, |l| l.0.clone()),
            ExprKind::Next => self.loops.last().map_or(out, |l| l.1.clone()),
            // `stop()` and `return()` leave: only their arguments are read.
            ExprKind::Call { func, args } if matches!((self.marker)(func), Some(Marker::Stop | Marker::Return | Marker::Results)) => {
                let mut s = self.always.clone();
                args.iter().for_each(|a| all_reads(&a.value, &mut s));
                s
            }
            // A `gpu({ ... })` block runs its statements (no section is inside it).
            ExprKind::Call { func, args } if (self.marker)(func) == Some(Marker::Gpu) && args.len() == 1 => self.stmt(&args[0].value, &at(0), out),
            _ => self.reads(e, out),
        }
    }
}

/// Which variables a run reads before writing them (its inputs) and which it may
/// assign, walking its statements in order with the set of variables certainly
/// assigned so far (`None`: the path cannot reach this point, after `break`, `next` or
/// `stop`).
struct Flow<'a> {
    locals: &'a HashSet<String>,
    marker: &'a dyn Fn(&str) -> Option<Marker>,
    /// What a call of a function defined inside (or such a function as a value) reads.
    captures: &'a dyn Fn(&Expr) -> Vec<String>,
    inputs: Vec<String>,
    assigned: Vec<String>,
}

type Defined = Option<BTreeSet<String>>;

fn meet(a: Defined, b: Defined) -> Defined {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
    }
}

impl Flow<'_> {
    fn read(&mut self, e: &Expr, d: &Defined) {
        let Some(d) = d else { return };
        let mut names = Vec::new();
        let captures = self.captures;
        let mut add = |x: &Expr| {
            if let ExprKind::Var(n) = &x.kind {
                names.push(n.clone());
            }
            names.extend(captures(x));
        };
        add(e);
        visit(e, &mut add);
        for n in names {
            if self.locals.contains(&n) && !d.contains(&n) && !self.inputs.contains(&n) {
                self.inputs.push(n);
            }
        }
    }

    fn assign(&mut self, n: &str, d: &mut Defined) {
        if !self.assigned.iter().any(|a| a == n) {
            self.assigned.push(n.to_string());
        }
        if let Some(d) = d {
            d.insert(n.to_string());
        }
    }

    fn block(&mut self, stmts: &[Expr], mut d: Defined) -> Defined {
        for s in stmts {
            d = self.stmt(s, d);
        }
        d
    }

    fn body(&mut self, e: &Expr, d: Defined) -> Defined {
        match &e.kind {
            ExprKind::Block(items) => self.block(items, d),
            _ => self.stmt(e, d),
        }
    }

    fn stmt(&mut self, e: &Expr, mut d: Defined) -> Defined {
        match &e.kind {
            ExprKind::Assign { target, value } => {
                // `a <- b <- v`: v, then b, then a.
                if matches!(value.kind, ExprKind::Assign { .. }) {
                    d = self.stmt(value, d);
                } else {
                    self.read(value, &d);
                }
                match &target.kind {
                    ExprKind::Var(n) => self.assign(n, &mut d),
                    ExprKind::Index { target: base, indices, .. } => {
                        for i in indices.iter().flatten() {
                            self.read(i, &d);
                        }
                        self.read(base, &d);
                        if let ExprKind::Var(n) = &base.kind {
                            self.assign(n, &mut d);
                        }
                    }
                    _ => self.read(target, &d),
                }
                d
            }
            ExprKind::Block(items) => self.block(items, d),
            ExprKind::If { cond, then, els } => {
                self.read(cond, &d);
                let a = self.body(then, d.clone());
                let b = match els {
                    Some(e) => self.body(e, d),
                    None => d,
                };
                meet(a, b)
            }
            ExprKind::For { var, seq, body } => {
                self.read(seq, &d);
                let mut inner = d.clone();
                self.assign(var, &mut inner);
                self.body(body, inner);
                // The body may run no time: only what was assigned before is certain.
                d
            }
            ExprKind::While { cond, body } => {
                self.read(cond, &d);
                if matches!(cond.kind, ExprKind::Bool(true)) {
                    return self.repeat(body, d);
                }
                self.body(body, d.clone());
                d
            }
            ExprKind::Repeat(body) => self.repeat(body, d),
            ExprKind::Break | ExprKind::Next => None,
            ExprKind::Call { func, args } if (self.marker)(func) == Some(Marker::Stop) => {
                for a in args {
                    self.read(&a.value, &d);
                }
                None
            }
            ExprKind::Call { func, args } if (self.marker)(func) == Some(Marker::Gpu) && args.len() == 1 => self.body(&args[0].value, d),
            _ => {
                self.read(e, &d);
                d
            }
        }
    }

    /// `repeat` (and `while (TRUE)`): its body runs at least once, so what it assigns
    /// before the first statement that may `break` is certain afterwards.
    fn repeat(&mut self, body: &Expr, d: Defined) -> Defined {
        let stmts: &[Expr] = match &body.kind {
            ExprKind::Block(items) => items,
            _ => std::slice::from_ref(body),
        };
        let mut cur = d.clone();
        let mut at_break: Defined = None;
        let mut broke = false;
        for s in stmts {
            if !broke && breaks_here(s, 0) {
                at_break = cur.clone();
                broke = true;
            }
            cur = self.stmt(s, cur);
        }
        if broke {
            // Every `break` comes at or after that statement, where at least `at_break`
            // is assigned (what a statement assigns is never unassigned later).
            at_break.or(d)
        } else {
            // No `break`: only `stop` (or `return`) leaves it.
            None
        }
    }
}

/// Whether a `break` of the loop being walked occurs in `e` (`loops`: loops entered
/// since).
fn breaks_here(e: &Expr, loops: u32) -> bool {
    match &e.kind {
        ExprKind::Break => loops == 0,
        ExprKind::For { body, .. } | ExprKind::While { body, .. } | ExprKind::Repeat(body) => breaks_here(body, loops + 1),
        ExprKind::Function(_) => false,
        _ => {
            let mut children = Vec::new();
            visit_children(e, &mut children);
            children.into_iter().any(|c| breaks_here(c, loops))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::r;

    fn sections(src: &str) -> Analysis {
        let p = r::program(src).unwrap();
        let def = p.defs["f"].clone();
        analyze(&p, "f", &def)
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_loop_next_to_cat_is_a_section_with_its_inputs_and_outputs() {
        let src = "f <- function(x, n) {\n  cat(\"start\\n\")\n  s <- 0\n  for (i in 1:n) s <- s + x[i]\n  cat(s, \"\\n\")\n  s\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1, "{a:?}");
        let s = &a.sections[0];
        assert_eq!(s.path, vec![3]);
        assert_eq!(s.count, 2);
        assert_eq!((s.first_line, s.last_line), (3, 4));
        assert_eq!(s.inputs, strs(&["n", "x"]));
        assert_eq!(s.outputs, strs(&["s"]));
        let kinds: Vec<&NoteKind> = a.notes.iter().map(|n| &n.kind).collect();
        assert_eq!(
            kinds,
            vec![
                &NoteKind::Excluded { construct: "call to `cat`".into(), line: 2 },
                &NoteKind::Section(1),
                &NoteKind::Excluded { construct: "call to `cat`".into(), line: 5 },
                &NoteKind::Value,
            ]
        );
    }

    #[test]
    fn temporaries_written_before_read_are_not_inputs_and_dead_ones_not_outputs() {
        let src = "f <- function(x) {\n  print(1)\n  s <- 0\n  for (i in seq_along(x)) {\n    t <- x[i] * 2\n    s <- s + t\n  }\n  s\n}\n";
        let a = sections(src);
        let s = &a.sections[0];
        assert_eq!(s.inputs, strs(&["x"]));
        assert_eq!(s.outputs, strs(&["s"]));
    }

    #[test]
    fn sections_inside_a_loop_that_prints_carry_their_state_across_turns() {
        let src = "f <- function(x, iters) {\n  s <- 0\n  for (it in 1:iters) {\n    cat(it)\n    for (i in seq_along(x)) s <- s + x[i]\n  }\n  s\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1, "{a:?}");
        let s = &a.sections[0];
        assert_eq!(s.path, vec![3, 4, 3]);
        assert_eq!(s.count, 1);
        assert!(s.in_loop);
        assert_eq!(s.inputs, strs(&["x", "s"]));
        assert_eq!(s.outputs, strs(&["s"]));
        // The enclosing loop is excluded by the `cat` inside it.
        assert_eq!(a.notes[1].kind, NoteKind::Excluded { construct: "call to `cat`".into(), line: 4 });
        assert_eq!(a.notes[2].depth, 1);
    }

    #[test]
    fn a_variable_assigned_on_some_paths_is_also_an_input() {
        // `best` keeps its value when no element exceeds 10; the fresh variant (for a
        // frame without `best`) takes only `x`.
        let src = "f <- function(x) {\n  best <- -1\n  message(\"go\")\n  for (i in seq_along(x)) if (x[i] > 10) best <- i\n  best\n}\n";
        let a = sections(src);
        let s = &a.sections[0];
        assert_eq!(s.inputs, strs(&["x", "best"]));
        assert_eq!(s.outputs, strs(&["best"]));
        assert_eq!(s.keep, strs(&["best"]));
        let p = r::program(src).unwrap();
        let fresh = outline(&p, "f", &p.defs["f"], 1, r::rules::RESULTS_MARKER, true).unwrap();
        assert_eq!(fresh.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), vec!["x"]);
    }

    #[test]
    fn chained_assignments_assign_every_target() {
        let src = "f <- function(n) {\n  cat(1)\n  s <- 0\n  for (i in 1:n) {\n    a <- b <- i * 2\n    s <- s + a + b\n  }\n  print(b)\n  s\n}\n";
        let a = sections(src);
        let s = &a.sections[0];
        assert_eq!(s.inputs, strs(&["n", "b"]));
        assert_eq!(s.outputs, strs(&["s", "b"]));
        assert_eq!(s.keep, strs(&["b"]));
    }

    #[test]
    fn repeat_assigns_what_comes_before_its_first_break() {
        let src = "f <- function(x) {\n  cat(1)\n  k <- 0\n  repeat {\n    y <- x * 2\n    k <- k + 1\n    if (k > 3) break\n  }\n  y + k\n}\n";
        let a = sections(src);
        let s = &a.sections[0];
        assert_eq!(s.inputs, strs(&["x"]));
        assert_eq!(s.outputs, strs(&["k", "y"]));
    }

    #[test]
    fn exclusions_name_the_first_construct() {
        let src = "f <- function(x) {\n  for (i in 1:3) return(1)\n  for (i in 1:3) x[i] <- \"a\"\n  for (i in 1:3) names(x) <- 1\n  for (i in 1:3) l$a <- 1\n  g <- function(y) y\n  for (i in 1:3) g(i)\n  x\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.iter().map(|s| s.first_line).collect::<Vec<_>>(), vec![7], "{a:?}");
        let what: Vec<String> = a
            .notes
            .iter()
            .filter(|n| n.depth == 0)
            .filter_map(|n| match &n.kind {
                NoteKind::Excluded { construct, .. } => Some(construct.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(what[0], "`return`");
        assert_eq!(what[1], "a string");
        assert_eq!(what[2], "replacement function `names<-`");
        assert!(what[3].contains('$'), "{what:?}");
        assert_eq!(what[4], "definition of function `g`");
        // A call of the function defined inside (lifted) is a section.
        assert_eq!(what.len(), 5, "{what:?}");
    }

    #[test]
    fn break_and_next_stay_inside_their_loop() {
        // The inner loop's `break` is fine; the `next` of the outer loop keeps the
        // statement that holds it out, and the loop inside still becomes a section.
        let src = "f <- function(x) {\n  for (j in 1:2) {\n    cat(j)\n    if (j == 1) next\n    for (i in 1:3) if (x[i] > 0) break\n  }\n  x\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1, "{a:?}");
        assert_eq!(a.sections[0].path, vec![2, 4, 4]);
        assert!(a.notes.iter().any(|n| n.kind == NoteKind::Excluded { construct: "`next` out of the section".into(), line: 4 }));
        // A loop whose own `next` stays inside it is a section whole.
        let src = "f <- function(x) {\n  cat(0)\n  for (j in 1:2) {\n    if (j == 1) next\n    x[j] <- 0\n  }\n  x\n}\n";
        assert_eq!(sections(src).sections[0].path, vec![3]);
    }

    #[test]
    fn runs_without_loops_and_the_value_stay_in_r() {
        let src = "f <- function(x) {\n  y <- x + 1\n  cat(y)\n  z <- y * 2\n  z\n}\n";
        let a = sections(src);
        assert!(a.sections.is_empty());
        let kinds: Vec<&NoteKind> = a.notes.iter().map(|n| &n.kind).collect();
        assert_eq!(kinds[0], &NoteKind::NoLoop);
        assert_eq!(kinds[2], &NoteKind::NoLoop);
        assert_eq!(kinds[3], &NoteKind::Value);
    }

    #[test]
    fn a_loop_as_the_value_is_a_section() {
        let src = "f <- function(x) {\n  cat(1)\n  for (i in seq_along(x)) x[i] <- 0\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1);
        assert_eq!(a.sections[0].inputs, strs(&["x"]));
        // Nothing reads x after the loop.
        assert!(a.sections[0].outputs.is_empty());
    }

    #[test]
    fn dynamic_access_makes_every_assigned_variable_a_result() {
        let src = "f <- function(n) {\n  cat(1)\n  for (i in 1:n) t <- i\n  get(\"t\")\n}\n";
        let a = sections(src);
        assert_eq!(a.sections[0].outputs, strs(&["i", "t"]));
    }

    #[test]
    fn loops_in_an_if_that_is_the_value_are_sections() {
        let src = "f <- function(x, v) {\n  if (v) {\n    print(x)\n    s <- 0\n    for (i in x) s <- s + i\n    s\n  } else 0\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1, "{a:?}");
        assert_eq!(a.sections[0].path, vec![2, 3, 3]);
        assert_eq!(a.sections[0].outputs, strs(&["s"]));
    }

    #[test]
    fn loop_variables_reused_by_later_loops_are_not_results() {
        let src = "f <- function(n) {\n  options(digits = 4)\n  v <- numeric(n)\n  for (i in 1:n) v[i] <- i\n  gc()\n  m <- 0\n  for (i in 1:n) m <- m + v[i] * i\n  print(m)\n  m\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 2, "{a:?}");
        assert_eq!(a.sections[0].inputs, strs(&["n"]));
        assert_eq!(a.sections[0].outputs, strs(&["v"]));
        assert_eq!(a.sections[1].inputs, strs(&["n", "v"]));
        assert_eq!(a.sections[1].outputs, strs(&["m"]));
        // Where the value is the last loop's `i`, it is a result of both sections (a
        // loop that runs no turn leaves it as it was), and an input of the second.
        let a = sections(&src.replace("  m\n}", "  i\n}"));
        assert_eq!(a.sections[0].outputs, strs(&["v", "i"]));
        assert_eq!(a.sections[1].outputs, strs(&["m", "i"]));
        assert_eq!(a.sections[1].inputs, strs(&["n", "v", "i"]));
    }

    #[test]
    fn a_closure_reading_a_variable_keeps_it_live() {
        let src = "f <- function(x) {\n  s <- 0\n  g <- function() s\n  for (i in seq_along(x)) s <- s + x[i]\n  g()\n}\n";
        let a = sections(src);
        assert_eq!(a.sections[0].outputs, strs(&["s"]));
    }

    #[test]
    fn a_variable_a_lifted_function_captures_stays_live_after_the_section() {
        // `g` reads `k` when it runs (after the loop): `k` is a result.
        let src = "f <- function(x) {\n  k <- 2\n  for (i in 1:3) k <- k + i\n  g <- function(y) y * k\n  cat(\"hi\")\n  g(x)\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1, "{a:?}");
        assert_eq!(a.sections[0].outputs, strs(&["k"]));
    }

    #[test]
    fn a_call_of_a_function_that_loops_is_worth_a_section() {
        // `kernel` loops, `sq` calls it, `chain` recurses: each call is a section; a call of
        // `plain` (no loop, no recursion) is not.
        let src = "kernel <- function(v) {\n  s <- 0\n  for (e in v) s <- s + e\n  s\n}\nsq <- function(v) kernel(v * v)\nchain <- function(n) if (n <= 1) 0 else 1 + chain(n - 1)\nplain <- function(v) v + 1\nf <- function(x) {\n  cat(\"a\")\n  a <- sq(x)\n  cat(\"b\")\n  b <- chain(5)\n  cat(\"c\")\n  p <- plain(x)\n  cat(\"d\")\n  c(a, b, p)\n}\n";
        let a = sections(src);
        let lines: Vec<(Line, Vec<String>)> = a.sections.iter().map(|s| (s.first_line, s.outputs.clone())).collect();
        assert_eq!(lines, vec![(11, strs(&["a"])), (13, strs(&["b"]))], "{a:?}");
        assert!(a.notes.iter().any(|n| n.first_line == 15 && n.kind == NoteKind::NoLoop), "{a:?}");
    }

    #[test]
    fn functionals_and_recall_iterate() {
        let src = "len <- function(z) {\n  n <- 0\n  while (z != 1) {\n    z <- if (z %% 2 == 0) z / 2 else 3 * z + 1\n    n <- n + 1\n  }\n  n\n}\nf <- function(m) {\n  cat(\"go\")\n  lens <- sapply(1:m, len)\n  g <- function(x, y) if (y == 0) x else Recall(y, x %% y)\n  h <- g(12, 18)\n  c(which.max(lens), h)\n}\n";
        let a = sections(src);
        let lines: Vec<Line> = a.sections.iter().map(|s| s.first_line).collect();
        assert_eq!(lines, vec![11, 13], "{a:?}");
    }

    #[test]
    fn a_section_calling_a_local_function_takes_its_captures_as_inputs() {
        // `scale` captures `k` (and `w`, through `inner`): the section reads them.
        let src = "f <- function(x, k) {\n  w <- 2\n  inner <- function(v) v * w\n  scale <- function(v) inner(v) * k\n  print(k)\n  r <- sapply(x, function(e) scale(e) + 1)\n  s <- scale(x[1])\n  print(s)\n  r\n}\n";
        let a = sections(src);
        assert_eq!(a.sections.len(), 1, "{a:?}");
        let s = &a.sections[0];
        assert_eq!((s.first_line, s.last_line), (6, 7));
        let mut inputs = s.inputs.clone();
        inputs.sort();
        assert_eq!(inputs, strs(&["k", "w", "x"]));
        assert_eq!(s.outputs, strs(&["r", "s"]));
    }

    #[test]
    fn outline_builds_a_function_of_inputs_with_the_original_lines() {
        let src = "f <- function(x, n) {\n  cat(\"start\")\n  s <- 0\n  p <- 1\n  for (i in 1:n) {\n    s <- s + x[i]\n    p <- p * x[i]\n  }\n  cat(s)\n  c(s, p)\n}\n";
        let p = r::program(src).unwrap();
        let def = outline(&p, "f", &p.defs["f"], 1, r::rules::RESULTS_MARKER, false).unwrap();
        assert_eq!(def.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), vec!["n", "x"]);
        let ExprKind::Block(stmts) = &def.body.kind else { panic!() };
        assert_eq!(stmts[0].line, 3);
        assert_eq!(stmts[2].line, 5);
        let ExprKind::Call { func, args } = &stmts[3].kind else { panic!("{:?}", stmts[3]) };
        assert_eq!(func, r::rules::RESULTS_MARKER);
        assert_eq!(args.len(), 2);
        assert!(outline(&p, "f", &p.defs["f"], 2, r::rules::RESULTS_MARKER, false).is_none());
    }

    #[test]
    fn the_body_as_a_single_loop_has_the_empty_path() {
        let src = "f <- function(x) for (i in seq_along(x)) cat(x[i])\ng <- function(n) while (n > 0) n <- n - 1\n";
        let p = r::program(src).unwrap();
        assert!(analyze(&p, "f", &p.defs["f"]).sections.is_empty());
        let a = analyze(&p, "g", &p.defs["g"]);
        assert_eq!(a.sections[0].path, Vec::<u32>::new());
        assert_eq!(run_at(&p.defs["g"].body, &[], 1).unwrap().len(), 1);
    }

    #[test]
    fn every_builtin_of_the_r_table_is_known_and_printing_is_not() {
        for name in ["sum", "length", "numeric", "matrix", "seq_len", "sqrt", "ifelse", "c", "invisible", "abs", "sapply", "vapply", "Reduce"] {
            assert!(r::rules::RULES.compiles_call(name), "{name}");
        }
        for name in ["cat", "print", "message", "options", "Sys.time", "gc", "list", "paste", "no_such_function"] {
            assert!(!r::rules::RULES.compiles_call(name), "{name}");
        }
    }

    #[test]
    fn probing_every_name_the_r_dispatcher_lists_does_not_panic() {
        // Each string literal of builtins::call's arms is probed with no arguments.
        let text = include_str!("r/builtins.rs");
        let start = text.find("pub fn call(").unwrap();
        let end = start + text[start..].find("_ => return None").unwrap();
        let mut names = Vec::new();
        let mut rest = &text[start..end];
        while let Some(i) = rest.find('"') {
            let after = &rest[i + 1..];
            let j = after.find('"').unwrap();
            names.push(after[..j].to_string());
            rest = &after[j + 1..];
        }
        assert!(names.len() > 40, "{names:?}");
        for n in names {
            let _ = r::rules::RULES.compiles_call(&n);
        }
    }
}
