//! Julia syntax rewritten into the shared HIR where the syntax alone decides it: the
//! parser calls these as it reads (update operators, `@.`, comprehensions, generators
//! in reductions, `let`, `Threads.@threads`, `enumerate`/`zip` loops, array literals,
//! `end` in indices). Names that start with `#` are ones no Julia source can spell:
//! the rule table's library (`#dot`, `#dotassign`, `#vect`, ...) or variables of a
//! comprehension (`#g3_x`), so they never meet the user's.

use super::parser::call;
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line, UnOp};

/// What `end` in an index reads before the parser knows the index's position.
pub const END_MARKER: &str = "#end";
/// The engine's several-results marker as the Julia front end spells it.
pub const RESULTS: &str = "#results";

fn e(kind: ExprKind, line: Line) -> Expr {
    Expr::new(kind, line)
}

fn var(name: &str, line: Line) -> Expr {
    e(ExprKind::Var(name.into()), line)
}

fn int(v: i32, line: Line) -> Expr {
    e(ExprKind::Int(v), line)
}

fn bin(op: BinOp, a: Expr, b: Expr, line: Line) -> Expr {
    e(ExprKind::Binary(op, Box::new(a), Box::new(b)), line)
}

fn assign(target: Expr, value: Expr, line: Line) -> Expr {
    e(ExprKind::Assign { target: Box::new(target), value: Box::new(value) }, line)
}

fn block(items: Vec<Expr>, line: Line) -> Expr {
    e(ExprKind::Block(items), line)
}

fn unsupported(what: &str, line: Line) -> Expr {
    e(ExprKind::Unsupported(what.into()), line)
}

fn if_then(cond: Expr, then: Expr, line: Line) -> Expr {
    e(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els: None }, line)
}

/// Is `v` a constant a top-level name may be bound to (numbers and arithmetic on them,
/// other names that are constants themselves)?
pub fn is_constant(v: &Expr) -> bool {
    match &v.kind {
        ExprKind::Int(_) | ExprKind::Double(_) | ExprKind::Bool(_) | ExprKind::Imaginary(_) | ExprKind::Var(_) => true,
        ExprKind::Call { func, args } if func == "#int" => args.len() == 1,
        ExprKind::Unary(UnOp::Neg | UnOp::Plus, a) => is_constant(a),
        ExprKind::Binary(op, a, b) if !matches!(op, BinOp::Colon) => is_constant(a) && is_constant(b),
        _ => false,
    }
}

/// `return`, `return v`, `return a, b`, `return nothing`.
pub fn return_of(value: Option<Expr>, line: Line) -> Expr {
    match value {
        None => call("return", vec![], line),
        Some(v) => match v.kind {
            ExprKind::Null => call("return", vec![], line),
            ExprKind::Tuple(items) => call(RESULTS, items, line),
            _ => call("return", vec![v], line),
        },
    }
}

/// `c && break`, `x < 0 && return 0`, `ok || error("...")` as statements: an `if`.
pub fn statement_short_circuit(s: Expr) -> Expr {
    let line = s.line;
    let ExprKind::Binary(op @ (BinOp::AndAnd | BinOp::OrOr), c, rhs) = &s.kind else { return s };
    let effect = match &rhs.kind {
        ExprKind::Break | ExprKind::Next | ExprKind::Assign { .. } => true,
        ExprKind::Call { func, .. } => matches!(func.as_str(), "return" | "error" | "throw" | "#dotassign") || func == RESULTS,
        _ => false,
    };
    if !effect {
        return s;
    }
    let cond = if *op == BinOp::AndAnd { (**c).clone() } else { e(ExprKind::Unary(UnOp::Not, c.clone()), line) };
    if_then(cond, (**rhs).clone(), line)
}

/// The HIR of `a OP b` for an update operator `a OP= b`.
fn update_value(op: &str, a: Expr, b: Expr, line: Line) -> Expr {
    match op {
        "+" => bin(BinOp::Add, a, b, line),
        "-" => bin(BinOp::Sub, a, b, line),
        "*" => bin(BinOp::Mul, a, b, line),
        "/" => bin(BinOp::Div, a, b, line),
        "^" => bin(BinOp::Pow, a, b, line),
        "&" => bin(BinOp::And, a, b, line),
        "|" => bin(BinOp::Or, a, b, line),
        "%" => call("rem", vec![a, b], line),
        "÷" => call("div", vec![a, b], line),
        "⊻" => call("xor", vec![a, b], line),
        "<<" | ">>" | ">>>" => call(op, vec![a, b], line),
        other => unsupported(&format!("update operator `{other}=`"), line),
    }
}

/// `target = value`, `target OP= value` (`update`: the operator and whether it is
/// dotted; `.=` is `("", true)`).
pub fn assignment(target: Expr, update: Option<(String, bool)>, value: Expr, line: Line) -> Expr {
    let value = match &update {
        None => return plain_assignment(target, value, line),
        Some((op, false)) => return plain_assignment(target.clone(), update_value(op, target, value, line), line),
        Some((op, true)) if op.is_empty() => value,
        Some((op, true)) => call(&format!(".{op}"), vec![target.clone(), value], line),
    };
    dot_assign(target, value, line)
}

fn plain_assignment(target: Expr, value: Expr, line: Line) -> Expr {
    // `m, n = size(A)`: one `size(A, k)` per target.
    if let (ExprKind::Tuple(ts), ExprKind::Call { func, args }) = (&target.kind, &value.kind) {
        if func == "size" && args.len() == 1 && args[0].name.is_none() {
            let a = args[0].value.clone();
            let items = (1..=ts.len()).map(|k| call("size", vec![a.clone(), int(k as i32, line)], line)).collect();
            return assign(target, e(ExprKind::Tuple(items), line), line);
        }
    }
    match &target.kind {
        ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Tuple(_) => assign(target, value, line),
        ExprKind::Unsupported(_) => target,
        ExprKind::Call { func, .. } => unsupported(&format!("definition of function `{func}` inside a function"), line),
        _ => unsupported("assignment to this target", line),
    }
}

/// `x .= v`: into the existing array `x` (`#dotassign`); into a selection `x[i, :] .= v`
/// it is an ordinary indexed store, which broadcasts a scalar.
fn dot_assign(target: Expr, value: Expr, line: Line) -> Expr {
    match &target.kind {
        ExprKind::Var(_) => call("#dotassign", vec![target, value], line),
        ExprKind::Index { .. } => assign(target, value, line),
        ExprKind::Call { func, args } if func == "#view" && args.len() == 1 => dot_assign(args[0].value.clone(), value, line),
        _ => unsupported("broadcast assignment `.=` to this target", line),
    }
}

/// A call `name(args)` as written, with Julia's spellings of things the HIR has other
/// forms for.
pub fn call_of(name: &str, args: Vec<Arg>, line: Line) -> Expr {
    if let [a] = args.as_slice() {
        if let ExprKind::Call { func, args: g } = &a.value.kind {
            if func == "#generator" && a.name.is_none() {
                return reduce_generator(name, g, line);
            }
        }
    }
    if args.iter().any(|a| matches!(&a.value.kind, ExprKind::Call { func, .. } if func == "#generator")) {
        return unsupported(&format!("generator argument of `{name}`"), line);
    }
    let positional: Vec<Expr> = args.iter().map(|a| a.value.clone()).collect();
    match name {
        "fill!" | "copyto!" if args.len() == 2 && args.iter().all(|a| a.name.is_none()) => {
            return dot_assign(positional[0].clone(), positional[1].clone(), line);
        }
        "throw" => return throw(&positional, line),
        "push!" | "append!" | "pushfirst!" | "pop!" | "popfirst!" | "resize!" | "insert!" | "deleteat!" | "empty!" => {
            return unsupported(&format!("`{name}` (arrays that change length)"), line)
        }
        "println" | "print" | "display" | "show" | "printf" | "write" | "flush" => return unsupported(&format!("`{name}` (printing)"), line),
        "rand" | "randn" | "rand!" | "randn!" | "shuffle" | "shuffle!" => return unsupported(&format!("`{name}` (random numbers)"), line),
        _ => {}
    }
    e(ExprKind::Call { func: name.into(), args }, line)
}

/// `throw(ArgumentError("msg"))` and friends: an error with Julia's message.
fn throw(args: &[Expr], line: Line) -> Expr {
    if let [Expr { kind: ExprKind::Call { func, args: inner }, .. }] = args {
        let text = inner.iter().rev().find_map(|a| match &a.value.kind {
            ExprKind::Str(s) => Some(s.clone()),
            _ => None,
        });
        if matches!(
            func.as_str(),
            "ArgumentError" | "DomainError" | "ErrorException" | "DimensionMismatch" | "BoundsError" | "AssertionError" | "OverflowError" | "InexactError"
        ) {
            let message = match (func.as_str(), text) {
                ("ErrorException", Some(t)) => t,
                (f, Some(t)) => format!("{f}: {t}"),
                (f, None) => f.to_string(),
            };
            return call("error", vec![e(ExprKind::Str(message), line)], line);
        }
    }
    unsupported("`throw` of this value", line)
}

/// Replace `end` markers of one index position: `lastindex(A)` for a single index,
/// `lastindex(A, k)` for position k of several.
pub fn resolve_end(ix: &mut Expr, target: &Expr, k: usize, n: usize) {
    walk_mut(ix, &mut |x| {
        if matches!(&x.kind, ExprKind::Call { func, args } if func == END_MARKER && args.is_empty()) {
            let line = x.line;
            let mut args = vec![target.clone()];
            if n > 1 {
                args.push(int(k as i32 + 1, line));
            }
            *x = call("lastindex", args, line);
        }
    });
}

/// Visit `e` and everything inside it, children first.
pub fn walk_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Unary(_, a) => walk_mut(a, f),
        ExprKind::Binary(_, a, b) => {
            walk_mut(a, f);
            walk_mut(b, f);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(|a| walk_mut(&mut a.value, f)),
        ExprKind::CallExpr { callee, args } => {
            walk_mut(callee, f);
            args.iter_mut().for_each(|a| walk_mut(&mut a.value, f));
        }
        ExprKind::Index { target, indices, .. } => {
            walk_mut(target, f);
            indices.iter_mut().flatten().for_each(|i| walk_mut(i, f));
        }
        ExprKind::Block(items) | ExprKind::Tuple(items) => items.iter_mut().for_each(|i| walk_mut(i, f)),
        ExprKind::If { cond, then, els } => {
            walk_mut(cond, f);
            walk_mut(then, f);
            if let Some(x) = els {
                walk_mut(x, f);
            }
        }
        ExprKind::For { seq, body, .. } => {
            walk_mut(seq, f);
            walk_mut(body, f);
        }
        ExprKind::While { cond, body } => {
            walk_mut(cond, f);
            walk_mut(body, f);
        }
        ExprKind::Repeat(body) => walk_mut(body, f),
        ExprKind::Assign { target, value } => {
            walk_mut(target, f);
            walk_mut(value, f);
        }
        _ => {}
    }
    f(e);
}

/// Rename variable `from` to `to` everywhere in `e` (loop variables included).
pub fn rename(e: &mut Expr, from: &str, to: &str) {
    walk_mut(e, &mut |x| match &mut x.kind {
        ExprKind::Var(n) if n == from => *n = to.to_string(),
        ExprKind::For { var, .. } if var == from => *var = to.to_string(),
        _ => {}
    });
}

/// `let a = v; body end`: `a` renamed to a variable of its own.
pub fn let_block(bindings: Vec<(String, Expr)>, body: Vec<Expr>, line: Line, fresh: &mut dyn FnMut() -> u32) -> Expr {
    let mut items = Vec::new();
    let mut body = block(body, line);
    for (name, value) in bindings {
        let to = format!("#let{}_{name}", fresh());
        rename(&mut body, &name, &to);
        items.push(assign(var(&to, line), value, line));
    }
    items.push(body);
    block(items, line)
}

/// A `for` loop's variable: a name, or a tuple `(i, x)` (of `enumerate`/`zip`).
pub enum LoopVar {
    Name(String),
    Tuple(Vec<String>),
}

/// `for a in r, b in s ... end`: nested loops, the first outermost. `parallel`: the
/// outermost is a `Threads.@threads` loop (a parfor over `#prange(count)`).
pub fn for_loops(iters: Vec<(LoopVar, Expr, Line)>, body: Expr, parallel: bool, line: Line, fresh: &mut dyn FnMut() -> u32) -> Expr {
    let mut body = body;
    let n = iters.len();
    for (k, (v, seq, l)) in iters.into_iter().enumerate().rev() {
        let (name, seq, mut prologue) = match v {
            LoopVar::Name(name) => (name, seq, Vec::new()),
            LoopVar::Tuple(names) => match tuple_loop(&names, seq, l, fresh()) {
                Ok(x) => x,
                Err(u) => return u,
            },
        };
        if parallel && k == 0 {
            let (name, seq, extra) = match parallel_range(name, seq, l, fresh()) {
                Ok(x) => x,
                Err(u) => return u,
            };
            prologue.splice(0..0, extra);
            prologue.push(body);
            body = e(ExprKind::For { var: name, seq: Box::new(seq), body: Box::new(block(prologue, l)) }, l);
            continue;
        }
        prologue.push(body);
        body = e(ExprKind::For { var: name, seq: Box::new(seq), body: Box::new(block(prologue, l)) }, l);
        let _ = n;
    }
    let _ = line;
    body
}

/// `for (i, x) in enumerate(v)` and `for (a, b) in zip(x, y)` (of variables): a loop
/// over positions with the elements read at its start.
fn tuple_loop(names: &[String], seq: Expr, line: Line, id: u32) -> Result<(String, Expr, Vec<Expr>), Expr> {
    let k = format!("#k{id}");
    let ExprKind::Call { func, args } = &seq.kind else {
        return Err(unsupported("`for` over a tuple of variables from this iterator", line));
    };
    let all_vars = args.iter().all(|a| matches!(a.value.kind, ExprKind::Var(_)) && a.name.is_none());
    match (func.as_str(), names, args.as_slice()) {
        ("enumerate", [i, x], [v]) if all_vars => {
            let range = bin(BinOp::Colon, int(1, line), call("length", vec![v.value.clone()], line), line);
            let item = e(ExprKind::Index { target: Box::new(v.value.clone()), indices: vec![Some(var(&k, line))], double: false }, line);
            Ok((k.clone(), range, vec![assign(var(i, line), var(&k, line), line), assign(var(x, line), item, line)]))
        }
        ("zip", names, vs) if all_vars && names.len() == vs.len() && !vs.is_empty() => {
            let mut len = call("length", vec![vs[0].value.clone()], line);
            for v in &vs[1..] {
                len = call("min", vec![len, call("length", vec![v.value.clone()], line)], line);
            }
            let range = bin(BinOp::Colon, int(1, line), len, line);
            let reads = names
                .iter()
                .zip(vs)
                .map(|(n, v)| {
                    assign(
                        var(n, line),
                        e(ExprKind::Index { target: Box::new(v.value.clone()), indices: vec![Some(var(&k, line))], double: false }, line),
                        line,
                    )
                })
                .collect();
            Ok((k, range, reads))
        }
        _ => Err(unsupported(&format!("`for` over a tuple of variables from `{func}`"), line)),
    }
}

/// The loop of `Threads.@threads for name in seq`: over `#prange(count)`, `name` set
/// from the position where the range does not start at 1.
fn parallel_range(name: String, seq: Expr, line: Line, id: u32) -> Result<(String, Expr, Vec<Expr>), Expr> {
    let prange = |n: Expr| call("#prange", vec![n], line);
    match &seq.kind {
        ExprKind::Binary(BinOp::Colon, a, b) if matches!(a.kind, ExprKind::Int(1)) => Ok((name, prange((**b).clone()), vec![])),
        ExprKind::Binary(BinOp::Colon, a, b) => {
            let k = format!("#p{id}");
            let count = bin(BinOp::Add, bin(BinOp::Sub, (**b).clone(), (**a).clone(), line), int(1, line), line);
            let set = assign(var(&name, line), bin(BinOp::Sub, bin(BinOp::Add, (**a).clone(), var(&k, line), line), int(1, line), line), line);
            Ok((k, prange(count), vec![set]))
        }
        ExprKind::Call { func, args } if func == "eachindex" && args.len() == 1 => {
            Ok((name, prange(call("length", vec![args[0].value.clone()], line)), vec![]))
        }
        ExprKind::Call { func, args } if func == "axes" && args.len() == 2 => {
            Ok((name, prange(call("size", vec![args[0].value.clone(), args[1].value.clone()], line)), vec![]))
        }
        _ => Err(unsupported("`Threads.@threads` over this iterator (it compiles over `a:b`, `eachindex(x)` and `axes(A, d)`)", line)),
    }
}

/// `body for x in r, y in s` (inside brackets or a call): the generator, its variables
/// renamed (`#g{id}_x`), as `#generator(id, body, "x'", r, "y'", s)`.
pub fn generator(mut body: Expr, iters: Vec<(String, Expr)>, line: Line, id: u32) -> Expr {
    let mut args = vec![int(id as i32, line)];
    let mut rest = Vec::new();
    for (name, seq) in iters {
        let to = format!("#g{id}_{name}");
        rename(&mut body, &name, &to);
        rest.push(e(ExprKind::Str(to), line));
        rest.push(seq);
    }
    args.push(body);
    args.extend(rest);
    call("#generator", args, line)
}

/// The parts of a `#generator`: its id, body and (variable, range) pairs.
/// A generator's id, body and (variable, range) pairs.
type GeneratorParts = (i32, Expr, Vec<(String, Expr)>);

fn generator_parts(args: &[Arg]) -> Option<GeneratorParts> {
    let ExprKind::Int(id) = args.first()?.value.kind else { return None };
    let body = args.get(1)?.value.clone();
    let mut iters = Vec::new();
    for pair in args[2..].chunks(2) {
        let ExprKind::Str(name) = &pair.first()?.value.kind else { return None };
        iters.push((name.clone(), pair.get(1)?.value.clone()));
    }
    Some((id, body, iters))
}

/// `[body for x in r]` (one range: a vector; two: a matrix, the first range varying
/// fastest): a block that allocates the result with the body's type (`#comp_alloc`
/// reads the type of the variable the body is stored in) and fills it in a loop.
pub fn comprehension(g: Expr) -> Expr {
    let line = g.line;
    let ExprKind::Call { func, args } = &g.kind else { return g };
    if func != "#generator" {
        return g;
    }
    let Some((id, body, iters)) = generator_parts(args) else { return unsupported("comprehension", line) };
    if iters.len() > 2 {
        return unsupported("comprehension over more than two ranges", line);
    }
    let out = format!("#g{id}_out");
    let value = format!("#g{id}_v");
    let counters: Vec<String> = (0..iters.len()).map(|k| format!("#g{id}_k{k}")).collect();
    let mut dims = vec![var(&value, line)];
    dims.extend(iters.iter().map(|(_, r)| call("#count", vec![r.clone()], line)));
    let mut items = vec![assign(var(&out, line), call("#comp_alloc", dims, line), line)];
    // Innermost: the first range. Its counter restarts in each turn of the second.
    let mut inner = block(
        vec![
            assign(var(&counters[0], line), bin(BinOp::Add, var(&counters[0], line), int(1, line), line), line),
            assign(var(&value, line), body, line),
            assign(
                e(ExprKind::Index { target: Box::new(var(&out, line)), indices: counters.iter().map(|c| Some(var(c, line))).collect(), double: false }, line),
                var(&value, line),
                line,
            ),
        ],
        line,
    );
    inner = e(ExprKind::For { var: iters[0].0.clone(), seq: Box::new(iters[0].1.clone()), body: Box::new(inner) }, line);
    if iters.len() == 2 {
        let outer = block(
            vec![
                assign(var(&counters[1], line), bin(BinOp::Add, var(&counters[1], line), int(1, line), line), line),
                assign(var(&counters[0], line), int(0, line), line),
                inner,
            ],
            line,
        );
        items.push(assign(var(&counters[1], line), int(0, line), line));
        inner = e(ExprKind::For { var: iters[1].0.clone(), seq: Box::new(iters[1].1.clone()), body: Box::new(outer) }, line);
    } else {
        items.push(assign(var(&counters[0], line), int(0, line), line));
    }
    items.push(inner);
    items.push(var(&out, line));
    block(items, line)
}

/// `sum(f(x) for x in r)` and the other reductions over one generator: a loop that
/// folds from the first value (Julia's `mapfoldl`); no values raises `#empty_fold`.
fn reduce_generator(name: &str, g: &[Arg], line: Line) -> Expr {
    let Some((id, body, iters)) = generator_parts(g) else { return unsupported("generator", line) };
    if iters.len() != 1 {
        return unsupported(&format!("`{name}` over a generator of several ranges"), line);
    }
    let (x, seq) = iters.into_iter().next().expect("one range");
    let acc = format!("#g{id}_s");
    let first = format!("#g{id}_first");
    let value = format!("#g{id}_v");
    let loop_of = |stmts: Vec<Expr>| e(ExprKind::For { var: x.clone(), seq: Box::new(seq.clone()), body: Box::new(block(stmts, line)) }, line);
    let flag = |v: bool| e(ExprKind::Bool(v), line);
    let (init, step, result): (Expr, Vec<Expr>, Expr) = match name {
        "any" | "all" => {
            let any = name == "any";
            let test = if any { body } else { e(ExprKind::Unary(UnOp::Not, Box::new(body)), line) };
            let hit = block(vec![assign(var(&acc, line), flag(any), line), e(ExprKind::Break, line)], line);
            (assign(var(&acc, line), flag(!any), line), vec![if_then(test, hit, line)], var(&acc, line))
        }
        "count" => {
            let add = assign(var(&acc, line), bin(BinOp::Add, var(&acc, line), int(1, line), line), line);
            (assign(var(&acc, line), int(0, line), line), vec![if_then(body, add, line)], var(&acc, line))
        }
        "sum" | "prod" | "maximum" | "minimum" => {
            let combined = match name {
                "sum" => bin(BinOp::Add, var(&acc, line), var(&value, line), line),
                "prod" => bin(BinOp::Mul, var(&acc, line), var(&value, line), line),
                "maximum" => call("max", vec![var(&acc, line), var(&value, line)], line),
                _ => call("min", vec![var(&acc, line), var(&value, line)], line),
            };
            let start = block(vec![assign(var(&acc, line), var(&value, line), line), assign(var(&first, line), flag(false), line)], line);
            let fold = e(
                ExprKind::If {
                    cond: Box::new(var(&first, line)),
                    then: Box::new(start),
                    els: Some(Box::new(block(vec![assign(var(&acc, line), combined, line)], line))),
                },
                line,
            );
            let empty = if_then(var(&first, line), call("#empty_fold", vec![], line), line);
            let body = vec![assign(var(&value, line), body, line), fold];
            return block(vec![assign(var(&first, line), flag(true), line), loop_of(body), empty, var(&acc, line)], line);
        }
        _ => return unsupported(&format!("generator argument of `{name}`"), line),
    };
    block(vec![init, loop_of(step), result], line)
}

/// `[a b; c d]` and its kinds: `[a b]` (`#hcat`), `[a; b]` (`#vcat`), several rows
/// (`#hvcat` of `#row`s), `[a]` (`#vect`).
pub fn matrix_literal(rows: Vec<Vec<Expr>>, line: Line) -> Expr {
    let rows: Vec<Vec<Expr>> = rows.into_iter().filter(|r| !r.is_empty()).collect();
    match rows.as_slice() {
        [] => call("#vect", vec![], line),
        [row] if row.len() == 1 => call("#vect", row.clone(), line),
        [row] => call("#hcat", row.clone(), line),
        rows if rows.iter().all(|r| r.len() == 1) => call("#vcat", rows.iter().map(|r| r[0].clone()).collect(), line),
        rows => call("#hvcat", rows.iter().map(|r| call("#row", r.clone(), line)).collect(), line),
    }
}

/// `Float64[...]`: the literal with its element type named (`#typed`).
pub fn typed_literal(t: &str, lit: Expr, line: Line) -> Expr {
    call("#typed", vec![e(ExprKind::Str(t.into()), line), lit], line)
}

/// A macro call in a function body.
pub fn macro_call(name: &str, mut args: Vec<Expr>, line: Line) -> Expr {
    match name {
        // Hints that keep the meaning: checks are ours to remove; the code stays IEEE.
        "inbounds" | "simd" | "fastmath" | "inline" | "noinline" | "propagate_inbounds" | "views" | "vr" | "polly" | "nospecialize" | "specialize"
        | "label" => match args.pop() {
            Some(a) => a,
            None => unsupported(&format!("macro `@{name}` without an argument"), line),
        },
        "." | "__dot__" => match args.pop() {
            Some(a) if args.is_empty() => dotify(a),
            _ => unsupported("`@.` with these arguments", line),
        },
        "view" => match args.as_slice() {
            [a] if matches!(a.kind, ExprKind::Index { .. }) => call("#view", args, line),
            _ => unsupported("`@view` of something other than an index `A[...]`", line),
        },
        "gpu" => match args.pop() {
            Some(a) if args.is_empty() => call("#gpu", vec![a], line),
            _ => unsupported("`@gpu` (it takes one `begin ... end` block)", line),
        },
        "assert" => {
            let message = match args.get(1).map(|m| &m.kind) {
                Some(ExprKind::Str(s)) => format!("AssertionError: {s}"),
                _ => format!("AssertionError: the assertion at line {line} failed"),
            };
            match args.into_iter().next() {
                Some(cond) => if_then(e(ExprKind::Unary(UnOp::Not, Box::new(cond)), line), call("error", vec![e(ExprKind::Str(message), line)], line), line),
                None => unsupported("`@assert` without a condition", line),
            }
        }
        "threads" => unsupported("`Threads.@threads` on something other than a `for` loop", line),
        "time" | "elapsed" | "timed" | "allocated" | "btime" | "benchmark" | "show" | "printf" | "sprintf" | "test" | "testset" | "info" | "warn" | "debug"
        | "error" | "spawn" | "sync" | "async" | "distributed" | "everywhere" | "eval" | "goto" => unsupported(&format!("macro `@{name}`"), line),
        _ => unsupported(&format!("macro `@{name}`"), line),
    }
}

/// `@. expr`: every operator and call broadcast, assignment in place.
pub fn dotify(x: Expr) -> Expr {
    let line = x.line;
    let d = |v: Box<Expr>| dotify(*v);
    match x.kind {
        ExprKind::Binary(op, a, b) => match op {
            BinOp::AndAnd | BinOp::OrOr | BinOp::Colon => e(ExprKind::Binary(op, Box::new(d(a)), Box::new(d(b))), line),
            _ => call(&format!(".{}", julia_spelling(op)), vec![d(a), d(b)], line),
        },
        ExprKind::Unary(UnOp::Neg, a) => call(".-", vec![d(a)], line),
        ExprKind::Unary(UnOp::Not, a) => call(".!", vec![d(a)], line),
        ExprKind::Unary(UnOp::Plus, a) => d(a),
        ExprKind::Call { func, args } => {
            let args: Vec<Arg> = args.into_iter().map(|a| Arg { name: a.name, value: dotify(a.value) }).collect();
            if func.starts_with('#') || func.starts_with('.') || func == "lastindex" {
                return e(ExprKind::Call { func, args }, line);
            }
            let operator = matches!(func.as_str(), "rem" | "div" | "xor" | "<<" | ">>" | ">>>" | "~");
            let spelled = match func.as_str() {
                "rem" => "%",
                "div" => "÷",
                "xor" => "⊻",
                f => f,
            };
            if operator {
                return e(ExprKind::Call { func: format!(".{spelled}"), args }, line);
            }
            let mut all = vec![Arg { name: None, value: e(ExprKind::Str(func), line) }];
            all.extend(args);
            e(ExprKind::Call { func: "#dot".into(), args: all }, line)
        }
        ExprKind::Assign { target, value } => dot_assign(*target, dotify(*value), line),
        ExprKind::Block(items) => block(items.into_iter().map(dotify).collect(), line),
        ExprKind::If { cond, then, els } => {
            e(ExprKind::If { cond: Box::new(dotify(*cond)), then: Box::new(dotify(*then)), els: els.map(|x| Box::new(dotify(*x))) }, line)
        }
        ExprKind::For { var, seq, body } => e(ExprKind::For { var, seq, body: Box::new(dotify(*body)) }, line),
        ExprKind::While { cond, body } => e(ExprKind::While { cond, body: Box::new(dotify(*body)) }, line),
        other => e(other, line),
    }
}

/// The Julia spelling of a plain binary operator (dotted: `.` in front).
pub fn julia_spelling(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Pow => "^",
        BinOp::Mod => "%",
        BinOp::IDiv => "÷",
        BinOp::Colon => ":",
        BinOp::MatMul => "*",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::And => "&",
        BinOp::Or => "|",
        BinOp::AndAnd => "&&",
        BinOp::OrOr => "||",
    }
}
