//! R's functionals, lowered to loops: `sapply`, `vapply`, `mapply`, `Reduce`, `Filter`,
//! `outer`, `apply`, and `lapply`/`Map` inside `unlist(...)`. The function argument is
//! an anonymous function (lifted by `frontend::lift`), a function of the program or of
//! an enclosing function given by name or as a string, an R builtin the front end knows
//! (`sapply(x, sqrt)`, `"abs"`) or an operator (`Reduce("+", x)`, `` `*` ``); each call
//! of it compiles as a call with those argument values, so user functions specialize on
//! the element types as any call does.
//!
//! Results follow R's simplification (`simplify2array`): a function returning a scalar
//! gives a vector of the scalar's type; one returning vectors of one length k gives a
//! k x n matrix, the lengths checked at run time. Where R's result would be a list
//! (different lengths, no elements, `lapply` itself) or a vector where the compiled
//! type is a matrix (every result of length 1), compiled code raises an error of kind
//! `unsupported`, so the R adapter runs the call in R: never a different answer. Where R
//! itself raises (`vapply`'s checks, `outer`'s length check), so does compiled code,
//! with R's message.

use super::builtins::shaped;
use super::rules::{bin, i64c, lib, to_logical};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line, UnOp};
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::matching::{self, Matched};
use crate::frontend::types::{tower, Ty};
use crate::vrir::{
    self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, ScalarType, Stmt, StmtKind, Type,
};

/// The functionals that call their function argument once per element (`outer` calls
/// it once, on whole vectors): compiled, each is a loop (`Language::iterates`).
pub const ITERATING: &[&str] = &["sapply", "vapply", "mapply", "Reduce", "Filter", "apply", "lapply", "Map"];

/// The functionals this module compiles; None for any other name.
pub fn call(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
    Some(match name {
        "sapply" => sapply(lw, args, line),
        "vapply" => vapply(lw, args, line),
        "mapply" => mapply(lw, "mapply", args, line, Collect::Simplify),
        "Reduce" => reduce(lw, args, line),
        "Filter" => filter(lw, args, line),
        "outer" => outer(lw, args, line),
        "apply" => apply(lw, args, line),
        "unlist" => match unlist_of(args) {
            Some((inner, inner_args)) => {
                if let Err(e) = r_match(lw, "unlist", args, line).and_then(|m| accept_defaults(lw, "unlist", args, &m, &["recursive", "use.names"], line)) {
                    return Some(Err(e));
                }
                if inner == "lapply" {
                    lapply_unlisted(lw, inner_args, line)
                } else {
                    mapply(lw, "Map", inner_args, line, Collect::Concatenate)
                }
            }
            None => return None,
        },
        "lapply" | "Map" => Err(lw.unsupported(&format!("call to `{name}`"), line, "its result is a list; it compiles inside `unlist(...)` (or use sapply, vapply, mapply)")),
        _ => return None,
    })
}

/// The run-time checks of this module, for the rule table's messages: R's message, or
/// why R's answer is something compiled code does not hold.
pub fn error_message(reason: &str, counts: Option<(i64, i64)>) -> Option<String> {
    let (a, b) = counts.unwrap_or((0, 0));
    Some(match reason {
        "vapply_length" => format!("values must be length {a},\n but FUN(X[[i]]) result is length {b}"),
        // The template's length known at compile time: the counts are the index and the
        // length, as R's message has them.
        r if r.starts_with(VAPPLY_LENGTH_OF) => {
            let k = &r[VAPPLY_LENGTH_OF.len()..];
            format!("values must be length {k},\n but FUN(X[[{a}]]) result is length {b}")
        }
        "outer_length" => format!("dims [product {a}] do not match the length of object [{b}]"),
        "apply_ragged" => "the function returned values of different lengths: R's result is then a list, which compiled code does not hold".into(),
        "apply_short" => "the function returned values of length 1 (R simplifies them to a vector) or 0 (R's result is a list), where compiled code built a matrix".into(),
        "apply_empty" => "no elements to apply the function to: R's result is then an empty list (or a vector whose type compiled code cannot tell)".into(),
        "vapply_one" => "FUN.VALUE has length 1 at run time: R's result is then a vector, where compiled code built a matrix".into(),
        "reduce_empty" => "Reduce() over no elements without `init`: R's result is NULL".into(),
        "mapply_recycle" => "mapply() arguments whose lengths differ and are not 1: R recycles them, compiled code does not".into(),
        _ => return None,
    })
}

/// Whether R raises an error itself where this check fires (not an answer compiled code
/// cannot hold).
pub fn is_r_error(reason: &str) -> bool {
    matches!(reason, "vapply_length" | "outer_length") || reason.starts_with(VAPPLY_LENGTH_OF)
}

/// The reason of `vapply`'s length check when the template's length is a constant,
/// which follows.
const VAPPLY_LENGTH_OF: &str = "vapply_length_of_";

// ----- arguments -----

/// Match a call against R's formals of `func` (`formals::of`), in R's words on failure.
fn r_match(lw: &Lowerer, func: &str, args: &[Arg], line: Line) -> LResult<Matched> {
    let formals = super::formals::of(func).expect("every functional has a formals entry");
    matching::match_args(formals, args).map_err(|m| {
        lw.unsupported(
            &format!("call to `{func}`"),
            line,
            &matching::message(&m, args),
        )
    })
}

fn formal_arg<'a>(m: &Matched, args: &'a [Arg], func: &str, formal: &str) -> Option<&'a Expr> {
    let k = super::formals::of(func)?
        .iter()
        .position(|f| *f == formal)?;
    m.get(args, k).map(|a| &a.value)
}

/// The formals named in `optional` may be given only with a value that changes nothing
/// compiled code does (`simplify = TRUE`, `USE.NAMES` either way: compiled vectors have
/// no names).
fn accept_defaults(
    lw: &Lowerer,
    func: &str,
    args: &[Arg],
    m: &Matched,
    optional: &[&str],
    line: Line,
) -> LResult<()> {
    for f in optional {
        let Some(e) = formal_arg(m, args, func, f) else {
            continue;
        };
        let ok = matches!(
            (*f, &e.kind),
            ("USE.NAMES" | "use.names", ExprKind::Bool(_))
                | ("simplify" | "SIMPLIFY" | "recursive", ExprKind::Bool(true))
                | ("MoreArgs", ExprKind::Null)
        );
        if !ok {
            return Err(lw.unsupported(
                &format!("`{f} =` of `{func}`"),
                line,
                "compiled with its default (simplify = TRUE; names are not kept)",
            ));
        }
    }
    Ok(())
}

/// `unlist(lapply(...))` or `unlist(Map(...))`: the inner function's name and arguments.
fn unlist_of(args: &[Arg]) -> Option<(&'static str, &[Arg])> {
    let first = args
        .iter()
        .find(|a| a.name.is_none() || a.name.as_deref() == Some("x"))?;
    match &first.value.kind {
        ExprKind::Call { func, args } if func == "lapply" => Some(("lapply", args)),
        ExprKind::Call { func, args } if func == "Map" => Some(("Map", args)),
        _ => None,
    }
}

/// A bool constant argument (`right = TRUE`); None when absent.
fn bool_const(lw: &Lowerer, e: Option<&Expr>, what: &str, line: Line) -> LResult<bool> {
    match e.map(|e| &e.kind) {
        None => Ok(false),
        Some(ExprKind::Bool(b)) => Ok(*b),
        Some(_) => Err(lw.unsupported(
            what,
            line,
            "compiled with TRUE or FALSE written in the call",
        )),
    }
}

// ----- the function argument -----

/// What a function argument names.
#[derive(Clone, Debug)]
enum Fun {
    /// A function of the program (top-level, local or anonymous), by program name.
    Program(String),
    /// An R function the rule table may know (`sqrt`).
    Builtin(String),
    /// An operator (`"+"`, `` `*` ``).
    Op(String),
}

const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "^", "%%", "%/%", "%*%", "==", "!=", "<", "<=", ">", ">=", "&", "|", "!",
];

fn fun_ref(lw: &Lowerer, e: &Expr, func: &str, line: Line) -> LResult<Fun> {
    let (ExprKind::Var(n) | ExprKind::Str(n)) = &e.kind else {
        return Err(lw.unsupported(
            &format!("the function argument of `{func}`"),
            line,
            "give a function by name, as a string or as `function(...) ...`; functions computed at run time do not compile",
        ));
    };
    if let Some(p) = lw.resolve_function(n) {
        return Ok(Fun::Program(p));
    }
    if OPERATORS.contains(&n.as_str()) {
        return Ok(Fun::Op(n.clone()));
    }
    if matches!(e.kind, ExprKind::Var(_)) && lw.has_variable(n) {
        return Err(lw.unsupported(
            &format!("the function argument `{n}` of `{func}`"),
            line,
            "a function held in a variable does not compile",
        ));
    }
    Ok(Fun::Builtin(n.clone()))
}

/// Call `f` with these argument values (names as given): a call of a program function
/// specializes it on their types; a builtin or an operator compiles as if written with
/// them.
fn apply_fun(
    lw: &mut Lowerer,
    f: &Fun,
    args: Vec<(Option<String>, Lowered)>,
    line: Line,
) -> LResult<Lowered> {
    let mut names = Vec::new();
    let mut hir_args = Vec::new();
    for (name, v) in args {
        let v = lw.hoist(v);
        let bound = lw.bind_value(v);
        hir_args.push(Arg {
            name,
            value: Expr::new(ExprKind::Var(bound.clone()), line),
        });
        names.push(bound);
    }
    let e = match f {
        Fun::Program(p) | Fun::Builtin(p) => Ok(Expr::new(
            ExprKind::Call {
                func: p.clone(),
                args: hir_args,
            },
            line,
        )),
        Fun::Op(o) => operator(lw, o, hir_args, line),
    };
    let r = e.and_then(|e| lw.expr(&e));
    for n in names {
        lw.unbind(&n);
    }
    r
}

fn operator(lw: &Lowerer, o: &str, args: Vec<Arg>, line: Line) -> LResult<Expr> {
    let op = |s: &str| -> Option<BinOp> {
        Some(match s {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "^" => BinOp::Pow,
            "%%" => BinOp::Mod,
            "%/%" => BinOp::IDiv,
            "%*%" => BinOp::MatMul,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "&" => BinOp::And,
            "|" => BinOp::Or,
            _ => return None,
        })
    };
    let mut vals: Vec<Expr> = args.into_iter().map(|a| a.value).collect();
    match (vals.len(), o) {
        (1, "-" | "+" | "!") => {
            let u = match o {
                "-" => UnOp::Neg,
                "+" => UnOp::Plus,
                _ => UnOp::Not,
            };
            Ok(Expr::new(
                ExprKind::Unary(u, Box::new(vals.remove(0))),
                line,
            ))
        }
        (2, _) if op(o).is_some() => {
            let b = vals.remove(1);
            let a = vals.remove(0);
            Ok(Expr::new(
                ExprKind::Binary(op(o).expect("checked"), Box::new(a), Box::new(b)),
                line,
            ))
        }
        (n, _) => Err(lw.unsupported(
            &format!("operator `{o}` as a function"),
            line,
            &format!("called with {n} arguments"),
        )),
    }
}

/// The extra arguments given for the function (`sapply(x, f, y, k = 2)`): evaluated once,
/// before the loop.
fn extras(
    lw: &mut Lowerer,
    args: &[Arg],
    dots: &[usize],
) -> LResult<Vec<(Option<String>, Lowered)>> {
    let mut out = Vec::new();
    for &i in dots {
        let v = lw.expr(&args[i].value)?;
        out.push((args[i].name.clone(), lw.hoist(v)));
    }
    Ok(out)
}

// ----- the elements iterated over -----

/// What a functional iterates over: a sequence (`1:n`, `seq_len(n)`, not built), an
/// array's elements in storage order (column-major), or one scalar.
enum Elements {
    Seq {
        start: vrir::Expr,
        step: vrir::Expr,
        elem: ScalarType,
    },
    Array(Lowered),
    Scalar(Lowered),
}

/// The elements of `e` and their count (a hoisted i64).
fn elements(lw: &mut Lowerer, e: &Expr) -> LResult<(Elements, vrir::Expr)> {
    let lang = lw.prog.lang;
    if let Some(p) = lang.seq(lw, e) {
        let p = p?;
        let i64t = Ty::scalar(ScalarType::I64);
        let start = lw.hoist(Lowered::new(p.start, i64t)).expr;
        let step = lw.hoist(Lowered::new(p.step, i64t)).expr;
        let span = bin(
            vrir::BinOp::Add,
            bin(
                vrir::BinOp::Div,
                bin(vrir::BinOp::Sub, p.stop, start.clone()),
                step.clone(),
            ),
            i64c(1),
        );
        let n = lw
            .hoist(Lowered::new(lib(LibFn::Max, vec![span, i64c(0)]), i64t))
            .expr;
        return Ok((
            Elements::Seq {
                start,
                step,
                elem: p.elem,
            },
            n,
        ));
    }
    let v = lw.expr(e)?;
    if v.ty.rank == 0 {
        let v = lw.hoist(v);
        return Ok((Elements::Scalar(v), i64c(1)));
    }
    let v = lw.hoist(v);
    let n = lw
        .hoist(Lowered::new(
            lib(LibFn::Len, vec![v.expr.clone()]),
            Ty::scalar(ScalarType::I64),
        ))
        .expr;
    Ok((Elements::Array(v), n))
}

impl Elements {
    /// Element `k` (an i64 expression, 1-based): R's `X[[k]]`.
    fn at(&self, lw: &Lowerer, k: vrir::Expr) -> Lowered {
        match self {
            Elements::Seq { start, step, elem } => {
                let v = bin(
                    vrir::BinOp::Add,
                    start.clone(),
                    bin(
                        vrir::BinOp::Mul,
                        bin(vrir::BinOp::Sub, k, i64c(1)),
                        step.clone(),
                    ),
                );
                lw.cast(Lowered::new(v, Ty::scalar(ScalarType::I64)), *elem)
            }
            Elements::Array(a) => Lowered::new(
                vrir::Expr::Index {
                    array: Box::new(a.expr.clone()),
                    indices: vec![k],
                    flags: IndexFlags {
                        flatten: a.ty.rank > 1,
                        ..IndexFlags::default()
                    },
                },
                Ty::scalar(a.ty.elem),
            ),
            Elements::Scalar(s) => s.clone(),
        }
    }
}

// ----- building blocks -----

fn stmt(kind: StmtKind, line: Line) -> Stmt {
    Stmt {
        kind,
        line: Some(line),
    }
}

fn assign(name: &str, value: vrir::Expr, line: Line) -> Stmt {
    stmt(
        StmtKind::Assign {
            targets: vec![LValue::Var {
                name: name.to_string(),
            }],
            value,
        },
        line,
    )
}

fn store(array: &str, indices: Vec<vrir::Expr>, value: vrir::Expr, line: Line) -> Stmt {
    stmt(
        StmtKind::Assign {
            targets: vec![LValue::Index {
                array: array.to_string(),
                indices,
                flags: IndexFlags::default(),
            }],
            value,
        },
        line,
    )
}

fn all() -> vrir::Expr {
    vrir::Expr::Range {
        start: None,
        stop: None,
        step: None,
    }
}

fn block(stmts: Vec<Stmt>) -> Block {
    Block {
        on_gpu: false,
        stmts,
    }
}

fn alloc(init: AllocInit, elem: ScalarType, dims: Vec<vrir::Expr>) -> vrir::Expr {
    let rank = dims.len() as u32;
    vrir::Expr::Alloc {
        init,
        ty: ArrayType::new(elem, rank, vrir::Layout::Col),
        dims,
    }
}

fn len(e: &vrir::Expr) -> vrir::Expr {
    lib(LibFn::Len, vec![e.clone()])
}

/// A fresh i64 variable.
fn counter(lw: &mut Lowerer) -> String {
    lw.temp(&Type::I64)
}

/// `for k in from..=to (step) { body }`.
fn for_loop(
    k: &str,
    from: vrir::Expr,
    to: vrir::Expr,
    step: Option<i64>,
    body: Vec<Stmt>,
    line: Line,
) -> Stmt {
    let domain = vrir::Expr::Range {
        start: Some(Box::new(from)),
        stop: Some(Box::new(to)),
        step: step.map(|s| Box::new(i64c(s))),
    };
    stmt(
        StmtKind::For {
            vars: vec![k.to_string()],
            domain,
            body: block(body),
        },
        line,
    )
}

/// The statements of a run-time check (`raise_if` into a list of its own).
fn check(lw: &mut Lowerer, cond: vrir::Expr, reason: &str) -> Vec<Stmt> {
    let (_, stmts) = lw.in_block(|lw| {
        lw.raise_if(cond, reason);
        Ok(())
    });
    stmts
}

fn check_counts(
    lw: &mut Lowerer,
    cond: vrir::Expr,
    reason: &str,
    counts: [vrir::Expr; 2],
) -> Vec<Stmt> {
    let (_, stmts) = lw.in_block(|lw| {
        lw.raise_if_counts(cond, reason, counts);
        Ok(())
    });
    stmts
}

/// What becomes of the values the function returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Collect {
    /// R's `simplify2array`: scalars make a vector, vectors of one length k > 1 a k x n
    /// matrix.
    Simplify,
    /// `unlist` of the list of values: one vector of them all, in order.
    Concatenate,
}

/// Run `per(k)` for k = 1..n (n a hoisted i64) and collect its values. `empty`: the
/// reason to raise when n is 0 where R's answer is a list (for vector results only when
/// `empty_scalars_ok`: apply gives an empty vector there).
fn collect(
    lw: &mut Lowerer,
    n: &vrir::Expr,
    how: Collect,
    empty: Option<&str>,
    empty_scalars_ok: bool,
    line: Line,
    per: impl FnOnce(&mut Lowerer, vrir::Expr) -> LResult<Lowered>,
) -> LResult<Lowered> {
    let k = counter(lw);
    let (r, mut body) = lw.in_block(|lw| {
        let r = per(lw, vrir::Expr::var(&k))?;
        Ok(lw.hoist(r))
    });
    let r = r?;
    if r.ty.rank > 1 {
        return Err(lw.unsupported(
            "a function returning a matrix or array, applied",
            line,
            "compiled for functions returning scalars or vectors",
        ));
    }
    let elem = r.ty.elem;
    if let Some(reason) = empty {
        if r.ty.rank > 0 || !empty_scalars_ok {
            lw.raise_if(bin(vrir::BinOp::Eq, n.clone(), i64c(0)), reason);
        }
    }
    if r.ty.rank == 0 {
        let ty = Ty::array(elem, 1);
        let out = lw.temp(&ty.vrir(lw.layout()));
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Var { name: out.clone() }],
            value: alloc(AllocInit::Empty, elem, vec![n.clone()]),
        });
        body.push(store(&out, vec![vrir::Expr::var(&k)], r.expr, line));
        lw.emit(for_loop(&k, i64c(1), n.clone(), None, body, line).kind);
        return Ok(Lowered::new(vrir::Expr::var(out), ty));
    }
    if how == Collect::Concatenate {
        return concatenate(lw, n, &k, r, body, line);
    }
    // Vectors: a k x n matrix, k fixed by the first value.
    let ty = Ty::array(elem, 2);
    let out = lw.temp(&ty.vrir(lw.layout()));
    let rows = counter(lw);
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: out.clone() }],
        value: alloc(AllocInit::Empty, elem, vec![i64c(0), n.clone()]),
    });
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: rows.clone() }],
        value: i64c(0),
    });
    let mut first = vec![
        assign(&rows, len(&r.expr), line),
        assign(
            &out,
            alloc(
                AllocInit::Empty,
                elem,
                vec![vrir::Expr::var(&rows), n.clone()],
            ),
            line,
        ),
    ];
    first.extend(check(
        lw,
        bin(vrir::BinOp::Le, vrir::Expr::var(&rows), i64c(1)),
        "apply_short",
    ));
    body.push(stmt(
        StmtKind::If {
            cond: bin(vrir::BinOp::Eq, vrir::Expr::var(&k), i64c(1)),
            then: block(first),
            els: None,
        },
        line,
    ));
    body.extend(check(
        lw,
        bin(vrir::BinOp::Ne, len(&r.expr), vrir::Expr::var(&rows)),
        "apply_ragged",
    ));
    body.push(store(&out, vec![all(), vrir::Expr::var(&k)], r.expr, line));
    lw.emit(for_loop(&k, i64c(1), n.clone(), None, body, line).kind);
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `unlist` of vectors of any lengths: appended to a buffer that doubles when full.
fn concatenate(
    lw: &mut Lowerer,
    n: &vrir::Expr,
    k: &str,
    r: Lowered,
    mut body: Vec<Stmt>,
    line: Line,
) -> LResult<Lowered> {
    let elem = r.ty.elem;
    let ty = Ty::array(elem, 1);
    let vty = ty.vrir(lw.layout());
    let buf = lw.temp(&vty);
    let grown = lw.temp(&vty);
    let (used, cap, need) = (counter(lw), counter(lw), counter(lw));
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: cap.clone() }],
        value: lib(LibFn::Max, vec![n.clone(), i64c(16)]),
    });
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: buf.clone() }],
        value: alloc(AllocInit::Empty, elem, vec![vrir::Expr::var(&cap)]),
    });
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: used.clone() }],
        value: i64c(0),
    });
    let v = |s: &str| vrir::Expr::var(s);
    let upto = |s: &str, from: vrir::Expr, to: vrir::Expr| vrir::Expr::Index {
        array: Box::new(v(s)),
        indices: vec![vrir::Expr::Range {
            start: Some(Box::new(from)),
            stop: Some(Box::new(to)),
            step: None,
        }],
        flags: IndexFlags::default(),
    };
    body.push(assign(
        &need,
        bin(vrir::BinOp::Add, v(&used), len(&r.expr)),
        line,
    ));
    let copy_old = stmt(
        StmtKind::If {
            cond: bin(vrir::BinOp::Gt, v(&used), i64c(0)),
            then: block(vec![store(
                &grown,
                vec![vrir::Expr::Range {
                    start: Some(Box::new(i64c(1))),
                    stop: Some(Box::new(v(&used))),
                    step: None,
                }],
                upto(&buf, i64c(1), v(&used)),
                line,
            )]),
            els: None,
        },
        line,
    );
    let grow = vec![
        assign(
            &cap,
            lib(
                LibFn::Max,
                vec![bin(vrir::BinOp::Mul, v(&cap), i64c(2)), v(&need)],
            ),
            line,
        ),
        assign(&grown, alloc(AllocInit::Empty, elem, vec![v(&cap)]), line),
        copy_old,
        assign(&buf, v(&grown), line),
    ];
    body.push(stmt(
        StmtKind::If {
            cond: bin(vrir::BinOp::Gt, v(&need), v(&cap)),
            then: block(grow),
            els: None,
        },
        line,
    ));
    let put = store(
        &buf,
        vec![vrir::Expr::Range {
            start: Some(Box::new(bin(vrir::BinOp::Add, v(&used), i64c(1)))),
            stop: Some(Box::new(v(&need))),
            step: None,
        }],
        r.expr.clone(),
        line,
    );
    body.push(stmt(
        StmtKind::If {
            cond: bin(vrir::BinOp::Gt, len(&r.expr), i64c(0)),
            then: block(vec![put]),
            els: None,
        },
        line,
    ));
    body.push(assign(&used, v(&need), line));
    lw.emit(for_loop(k, i64c(1), n.clone(), None, body, line).kind);
    let out = lw.temp(&vty);
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: out.clone() }],
        value: alloc(AllocInit::Empty, elem, vec![v(&used)]),
    });
    lw.emit(StmtKind::If {
        cond: bin(vrir::BinOp::Gt, v(&used), i64c(0)),
        then: block(vec![store(
            &out,
            vec![all()],
            upto(&buf, i64c(1), v(&used)),
            line,
        )]),
        els: None,
    });
    Ok(Lowered::new(v(&out), ty))
}

// ----- the functionals -----

/// `sapply(X, FUN, ..., simplify = TRUE, USE.NAMES = TRUE)`.
fn sapply(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "sapply", args, line)?;
    accept_defaults(lw, "sapply", args, &m, &["simplify", "USE.NAMES"], line)?;
    let x = required(lw, &m, args, "sapply", "X", line)?;
    let f = fun_ref(
        lw,
        required(lw, &m, args, "sapply", "FUN", line)?,
        "sapply",
        line,
    )?;
    let (xs, n) = elements(lw, x)?;
    let more = extras(lw, args, &m.dots)?;
    collect(
        lw,
        &n,
        Collect::Simplify,
        Some("apply_empty"),
        false,
        line,
        |lw, k| {
            let mut call_args = vec![(None, xs.at(lw, k))];
            call_args.extend(more);
            apply_fun(lw, &f, call_args, line)
        },
    )
}

/// `unlist(lapply(X, FUN, ...))`.
fn lapply_unlisted(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "lapply", args, line)?;
    let x = required(lw, &m, args, "lapply", "X", line)?;
    let f = fun_ref(
        lw,
        required(lw, &m, args, "lapply", "FUN", line)?,
        "lapply",
        line,
    )?;
    let (xs, n) = elements(lw, x)?;
    let more = extras(lw, args, &m.dots)?;
    collect(
        lw,
        &n,
        Collect::Concatenate,
        Some("apply_empty"),
        false,
        line,
        |lw, k| {
            let mut call_args = vec![(None, xs.at(lw, k))];
            call_args.extend(more);
            apply_fun(lw, &f, call_args, line)
        },
    )
}

fn required<'a>(
    lw: &Lowerer,
    m: &Matched,
    args: &'a [Arg],
    func: &str,
    formal: &str,
    line: Line,
) -> LResult<&'a Expr> {
    formal_arg(m, args, func, formal).ok_or_else(|| {
        lw.unsupported(
            &format!("call to `{func}`"),
            line,
            &format!("argument \"{formal}\" is missing, with no default"),
        )
    })
}

/// The length of a `FUN.VALUE` template when the source spells it (`numeric(1)`, `0`,
/// `integer(3)`, `c(0, 0)`).
fn template_length(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Double(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Imaginary(_) => {
            Some(1)
        }
        ExprKind::Unary(UnOp::Neg, a) => template_length(a),
        ExprKind::Call { func, args }
            if matches!(
                func.as_str(),
                "numeric" | "double" | "integer" | "logical" | "complex"
            ) =>
        {
            match args.as_slice() {
                [] => Some(0),
                [a] if a.name.is_none()
                    || a.name.as_deref().is_some_and(|n| "length".starts_with(n)) =>
                {
                    match a.value.kind {
                        ExprKind::Double(v) if v >= 0.0 && v.fract() == 0.0 => Some(v as i64),
                        ExprKind::Int(v) if v >= 0 => Some(v as i64),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        ExprKind::Call { func, args }
            if func == "c"
                && args
                    .iter()
                    .all(|a| a.name.is_none() && template_length(&a.value) == Some(1)) =>
        {
            Some(args.len() as i64)
        }
        _ => None,
    }
}

fn r_type(e: ScalarType) -> &'static str {
    match e {
        ScalarType::Bool => "logical",
        ScalarType::I32 | ScalarType::I64 => "integer",
        ScalarType::C64 | ScalarType::C128 => "complex",
        _ => "double",
    }
}

/// `vapply(X, FUN, FUN.VALUE, ..., USE.NAMES = TRUE)`: every value must have the
/// template's length and a type no wider than its (R's checks, R's messages); the result
/// has the template's type, also when X is empty.
fn vapply(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "vapply", args, line)?;
    accept_defaults(lw, "vapply", args, &m, &["USE.NAMES"], line)?;
    let x = required(lw, &m, args, "vapply", "X", line)?;
    let f = fun_ref(
        lw,
        required(lw, &m, args, "vapply", "FUN", line)?,
        "vapply",
        line,
    )?;
    let template_e = required(lw, &m, args, "vapply", "FUN.VALUE", line)?;
    let template = lw.expr(template_e)?;
    if template.ty.rank > 1 {
        return Err(lw.unsupported(
            "`FUN.VALUE` of `vapply`",
            line,
            "compiled for scalar and vector templates (R's result would be an array)",
        ));
    }
    let te = template.ty.elem;
    let known = template_length(template_e).or((template.ty.rank == 0).then_some(1));
    let template = lw.hoist(template);
    let k_len = match known {
        Some(k) => i64c(k),
        None => {
            lw.hoist(Lowered::new(
                len(&template.expr),
                Ty::scalar(ScalarType::I64),
            ))
            .expr
        }
    };
    if known == Some(0) {
        return Err(lw.unsupported("`FUN.VALUE` of length 0", line, "not compiled"));
    }
    let matrix = known != Some(1);
    if known.is_none() {
        lw.raise_if(bin(vrir::BinOp::Le, k_len.clone(), i64c(1)), "vapply_one");
    }
    let (xs, n) = elements(lw, x)?;
    let more = extras(lw, args, &m.dots)?;
    let k = counter(lw);
    let (r, mut body) = lw.in_block(|lw| {
        let mut call_args = vec![(None, xs.at(lw, vrir::Expr::var(&k)))];
        call_args.extend(more);
        let r = apply_fun(lw, &f, call_args, line)?;
        Ok(lw.hoist(r))
    });
    let r = r?;
    if tower(r.ty.elem) > tower(te) || r.ty.rank > 1 {
        let got = if r.ty.rank > 1 {
            format!("a {}", r.ty)
        } else {
            format!("type '{}'", r_type(r.ty.elem))
        };
        return Err(lw.unsupported(
            "`vapply`",
            line,
            &format!("the function returns {got} where FUN.VALUE is type '{}': R raises an error (values must be type '{}')", r_type(te), r_type(te)),
        ));
    }
    let ty = Ty::array(te, if matrix { 2 } else { 1 });
    let out = lw.temp(&ty.vrir(lw.layout()));
    let dims = if matrix {
        vec![k_len.clone(), n.clone()]
    } else {
        vec![n.clone()]
    };
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: out.clone() }],
        value: alloc(AllocInit::Empty, te, dims),
    });
    let got = if r.ty.rank == 0 {
        i64c(1)
    } else {
        len(&r.expr)
    };
    let mismatch = bin(vrir::BinOp::Ne, got.clone(), k_len.clone());
    body.extend(match known {
        Some(c) => check_counts(
            lw,
            mismatch,
            &format!("{VAPPLY_LENGTH_OF}{c}"),
            [vrir::Expr::var(&k), got],
        ),
        None => check_counts(lw, mismatch, "vapply_length", [k_len.clone(), got]),
    });
    let value = lw.cast(r, te);
    let kv = vrir::Expr::var(&k);
    let put = match (matrix, value.ty.rank) {
        (false, 0) => store(&out, vec![kv], value.expr, line),
        (false, _) => {
            let one = vrir::Expr::Index {
                array: Box::new(value.expr),
                indices: vec![i64c(1)],
                flags: IndexFlags::default(),
            };
            store(&out, vec![kv], one, line)
        }
        // A scalar where FUN.VALUE is longer: the check above raised R's error.
        (true, 0) => store(&out, vec![i64c(1), kv], value.expr, line),
        (true, _) => store(&out, vec![all(), kv], value.expr, line),
    };
    body.push(put);
    lw.emit(for_loop(&k, i64c(1), n, None, body, line).kind);
    Ok(Lowered::new(vrir::Expr::var(out), ty))
}

/// `mapply(FUN, ..., MoreArgs = NULL, SIMPLIFY = TRUE, USE.NAMES = TRUE)` and, through
/// `unlist`, `Map(f, ...)`: FUN called with the k-th element of each vector (by the
/// names they were given), of length 1 or all of one length (R recycles other lengths:
/// raised).
fn mapply(
    lw: &mut Lowerer,
    func: &str,
    args: &[Arg],
    line: Line,
    how: Collect,
) -> LResult<Lowered> {
    let m = r_match(lw, func, args, line)?;
    let fun_formal = if func == "Map" { "f" } else { "FUN" };
    let f = fun_ref(
        lw,
        required(lw, &m, args, func, fun_formal, line)?,
        func,
        line,
    )?;
    let mut more: Vec<(Option<String>, Lowered)> = Vec::new();
    if func == "mapply" {
        accept_defaults(lw, func, args, &m, &["SIMPLIFY", "USE.NAMES"], line)?;
        match formal_arg(&m, args, func, "MoreArgs").map(|e| &e.kind) {
            None | Some(ExprKind::Null) => {}
            Some(ExprKind::Call {
                func: l,
                args: margs,
            }) if l == "list" && margs.iter().all(|a| a.name.is_some()) => {
                for a in margs {
                    let v = lw.expr(&a.value)?;
                    more.push((a.name.clone(), lw.hoist(v)));
                }
            }
            Some(_) => {
                return Err(lw.unsupported(
                    "`MoreArgs` of `mapply`",
                    line,
                    "compiled as `list(name = value, ...)`",
                ))
            }
        }
    }
    if m.dots.is_empty() {
        return Err(lw.unsupported(
            &format!("`{func}` without vectors"),
            line,
            "R's result is an empty list",
        ));
    }
    let mut vecs = Vec::new();
    for &i in &m.dots {
        let (xs, n) = elements(lw, &args[i].value)?;
        vecs.push((args[i].name.clone(), xs, n));
    }
    // The longest; every other must be as long or of length 1.
    let mut total = vecs[0].2.clone();
    for (_, _, n) in &vecs[1..] {
        total = lib(LibFn::Max, vec![total, n.clone()]);
    }
    let total = lw
        .hoist(Lowered::new(total, Ty::scalar(ScalarType::I64)))
        .expr;
    for (_, _, n) in &vecs {
        // Any empty vector makes R's result an empty list.
        lw.raise_if(bin(vrir::BinOp::Eq, n.clone(), i64c(0)), "apply_empty");
        let bad = bin(
            vrir::BinOp::And,
            bin(vrir::BinOp::Ne, n.clone(), total.clone()),
            bin(vrir::BinOp::Ne, n.clone(), i64c(1)),
        );
        lw.raise_if(bad, "mapply_recycle");
    }
    collect(
        lw,
        &total,
        how,
        Some("apply_empty"),
        false,
        line,
        |lw, k| {
            let mut call_args = Vec::new();
            for (name, xs, n) in &vecs {
                // Length 1 is recycled: element min(k, n).
                let at = if matches!(xs, Elements::Scalar(_)) {
                    i64c(1)
                } else {
                    lib(LibFn::Min, vec![k.clone(), n.clone()])
                };
                call_args.push((name.clone(), xs.at(lw, at)));
            }
            call_args.extend(more);
            apply_fun(lw, &f, call_args, line)
        },
    )
}

/// `Reduce(f, x, init, right = FALSE, accumulate = FALSE)`: a fold through an
/// accumulator whose type is the join of `init` (or the first element) and every value
/// `f` returns (the engine's inference settles it across rounds).
fn reduce(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "Reduce", args, line)?;
    let f = fun_ref(
        lw,
        required(lw, &m, args, "Reduce", "f", line)?,
        "Reduce",
        line,
    )?;
    let x = required(lw, &m, args, "Reduce", "x", line)?;
    let right = bool_const(
        lw,
        formal_arg(&m, args, "Reduce", "right"),
        "`right =` of `Reduce`",
        line,
    )?;
    let accumulate = bool_const(
        lw,
        formal_arg(&m, args, "Reduce", "accumulate"),
        "`accumulate =` of `Reduce`",
        line,
    )?;
    let init = match formal_arg(&m, args, "Reduce", "init") {
        Some(e) => Some(lw.expr(e)?),
        None => None,
    };
    let (xs, n) = elements(lw, x)?;
    // One accumulator variable per Reduce call of the source: named after its line and
    // text, so that every inference round finds the same one.
    let acc_name = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        format!("{args:?}").hash(&mut h);
        format!("#Reduce@{line}:{:x}", h.finish())
    };
    let acc_var = lw.vrir_var_name(&acc_name);
    let first = match init {
        Some(v) => v,
        None => {
            lw.raise_if(bin(vrir::BinOp::Eq, n.clone(), i64c(0)), "reduce_empty");
            let at = if right { n.clone() } else { i64c(1) };
            xs.at(lw, at)
        }
    };
    let has_init = formal_arg(&m, args, "Reduce", "init").is_some();
    let acc_ty = lw.synthetic_var(&acc_name, first.ty, line)?;
    if accumulate && acc_ty.rank > 0 {
        return Err(lw.unsupported(
            "`Reduce(accumulate = TRUE)` of vectors",
            line,
            "R's result is then a list",
        ));
    }
    let first = lw.cast(first, acc_ty.elem);
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var {
            name: acc_var.clone(),
        }],
        value: first.expr,
    });
    // Steps: left k = (init ? 1 : 2)..n; right k = (init ? n : n - 1) down to 1.
    let (from, to, step) = match (right, has_init) {
        (false, true) => (i64c(1), n.clone(), 1),
        (false, false) => (i64c(2), n.clone(), 1),
        (true, true) => (n.clone(), i64c(1), -1),
        (true, false) => (bin(vrir::BinOp::Sub, n.clone(), i64c(1)), i64c(1), -1),
    };
    // accumulate: out[j] holds the value after step j (left), or before the element j
    // (right); its length is n, or n + 1 with init.
    let out = if accumulate {
        let size = if has_init {
            bin(vrir::BinOp::Add, n.clone(), i64c(1))
        } else {
            n.clone()
        };
        let ty = Ty::array(acc_ty.elem, 1);
        let out = lw.temp(&ty.vrir(lw.layout()));
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Var { name: out.clone() }],
            value: alloc(AllocInit::Empty, acc_ty.elem, vec![size.clone()]),
        });
        // With no init and no elements Reduce raised above; with init out has room.
        let at = if right { size } else { i64c(1) };
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Index {
                array: out.clone(),
                indices: vec![at],
                flags: IndexFlags::default(),
            }],
            value: vrir::Expr::var(&acc_var),
        });
        Some((out, ty))
    } else {
        None
    };
    let k = counter(lw);
    let (r, mut body) = lw.in_block(|lw| {
        let acc = Lowered::new(vrir::Expr::var(&acc_var), acc_ty);
        let elem = xs.at(lw, vrir::Expr::var(&k));
        let call_args = if right {
            vec![(None, elem), (None, acc)]
        } else {
            vec![(None, acc), (None, elem)]
        };
        apply_fun(lw, &f, call_args, line)
    });
    let r = r?;
    if r.ty.rank != acc_ty.rank {
        return Err(lw.unsupported(
            "`Reduce`",
            line,
            &format!(
                "the function makes a {} of a {}: a compiled accumulator keeps one rank",
                r.ty, acc_ty
            ),
        ));
    }
    let joined = lw.synthetic_var(&acc_name, r.ty, line)?;
    let r = lw.cast(r, joined.elem);
    body.push(assign(&acc_var, r.expr, line));
    if let Some((out, _)) = &out {
        // Left: the value after element k sits at k (k + 1 with init); right: at k.
        let at = if !right && has_init {
            bin(vrir::BinOp::Add, vrir::Expr::var(&k), i64c(1))
        } else {
            vrir::Expr::var(&k)
        };
        body.push(store(out, vec![at], vrir::Expr::var(&acc_var), line));
    }
    lw.emit(for_loop(&k, from, to, Some(step), body, line).kind);
    Ok(match out {
        Some((out, ty)) => Lowered::new(vrir::Expr::var(out), ty),
        None => Lowered::new(vrir::Expr::var(acc_var), acc_ty),
    })
}

/// `Filter(f, x)`: the elements of `x` for which `f` is TRUE (R's
/// `x[which(as.logical(unlist(lapply(x, f))))]`; an NA from `f` raises, where R drops
/// the element).
fn filter(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "Filter", args, line)?;
    let f = fun_ref(
        lw,
        required(lw, &m, args, "Filter", "f", line)?,
        "Filter",
        line,
    )?;
    let x = lw.expr(required(lw, &m, args, "Filter", "x", line)?)?;
    if x.ty.rank != 1 {
        return Err(lw.unsupported(
            &format!("`Filter` of a {}", x.ty),
            line,
            "compiled for vectors",
        ));
    }
    let x = lw.hoist(x);
    let n = lw
        .hoist(Lowered::new(len(&x.expr), Ty::scalar(ScalarType::I64)))
        .expr;
    let xs = Elements::Array(x.clone());
    let mask = lw.temp(&Ty::array(ScalarType::Bool, 1).vrir(lw.layout()));
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: mask.clone() }],
        value: alloc(AllocInit::Zeros, ScalarType::Bool, vec![n.clone()]),
    });
    let k = counter(lw);
    let (r, mut body) = lw.in_block(|lw| {
        let r = apply_fun(lw, &f, vec![(None, xs.at(lw, vrir::Expr::var(&k)))], line)?;
        if r.ty.rank != 0 {
            return Err(lw.unsupported(
                "`Filter` with a function returning a vector",
                line,
                "compiled for functions returning one logical value",
            ));
        }
        to_logical(lw, r, line)
    });
    let r = r?;
    body.push(store(&mask, vec![vrir::Expr::var(&k)], r.expr, line));
    lw.emit(for_loop(&k, i64c(1), n, None, body, line).kind);
    let ty = x.ty;
    Ok(Lowered::new(
        vrir::Expr::Index {
            array: Box::new(x.expr),
            indices: vec![vrir::Expr::var(mask)],
            flags: IndexFlags::default(),
        },
        ty,
    ))
}

/// `outer(X, Y, FUN = "*", ...)`: as R does it, FUN called once on `X` repeated
/// `length(Y)` times and `Y` with each element repeated `length(X)` times, its value
/// (which must have `length(X) * length(Y)` elements) shaped into a matrix.
fn outer(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "outer", args, line)?;
    let f = match formal_arg(&m, args, "outer", "FUN") {
        Some(e) => fun_ref(lw, e, "outer", line)?,
        None => Fun::Op("*".into()),
    };
    // An arithmetic operator (the default `"*"` included) is an element loop with R's
    // result type (`library::outer_op`: R computes `"*"` as a double product).
    if let (Fun::Op(op), true) = (&f, m.dots.is_empty()) {
        if let Some(op) = super::library::outer_operator(op) {
            let x = required(lw, &m, args, "outer", "X", line)?;
            let y = required(lw, &m, args, "outer", "Y", line)?;
            return super::library::outer_op(lw, x, y, op, line);
        }
    }
    let x = lw.expr(required(lw, &m, args, "outer", "X", line)?)?;
    let y = lw.expr(required(lw, &m, args, "outer", "Y", line)?)?;
    if x.ty.rank > 1 || y.ty.rank > 1 {
        return Err(lw.unsupported(
            "`outer` of a matrix or array",
            line,
            "compiled for vectors (R's result would have more dimensions)",
        ));
    }
    let more = extras(lw, args, &m.dots)?;
    let (x, y) = (lw.hoist(x), lw.hoist(y));
    let i64t = Ty::scalar(ScalarType::I64);
    let count = |lw: &mut Lowerer, v: &Lowered| {
        if v.ty.rank == 0 {
            i64c(1)
        } else {
            lw.hoist(Lowered::new(len(&v.expr), i64t)).expr
        }
    };
    let (nx, ny) = (count(lw, &x), count(lw, &y));
    let total = lw
        .hoist(Lowered::new(
            bin(vrir::BinOp::Mul, nx.clone(), ny.clone()),
            i64t,
        ))
        .expr;
    let (xe, ye) = (
        lw.temp(&Ty::array(x.ty.elem, 1).vrir(lw.layout())),
        lw.temp(&Ty::array(y.ty.elem, 1).vrir(lw.layout())),
    );
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: xe.clone() }],
        value: alloc(AllocInit::Empty, x.ty.elem, vec![total.clone()]),
    });
    lw.emit(StmtKind::Assign {
        targets: vec![LValue::Var { name: ye.clone() }],
        value: alloc(AllocInit::Empty, y.ty.elem, vec![total.clone()]),
    });
    let (i, j) = (counter(lw), counter(lw));
    let pos = bin(
        vrir::BinOp::Add,
        bin(
            vrir::BinOp::Mul,
            bin(vrir::BinOp::Sub, vrir::Expr::var(&j), i64c(1)),
            nx.clone(),
        ),
        vrir::Expr::var(&i),
    );
    let xi = Elements::Array(x.clone());
    let yj = Elements::Array(y.clone());
    let at = |lw: &Lowerer, e: &Elements, v: &Lowered, k: &str| {
        if v.ty.rank == 0 {
            v.clone()
        } else {
            e.at(lw, vrir::Expr::var(k))
        }
    };
    let inner = vec![
        store(&xe, vec![pos.clone()], at(lw, &xi, &x, &i).expr, line),
        store(&ye, vec![pos], at(lw, &yj, &y, &j).expr, line),
    ];
    let rows = for_loop(&i, i64c(1), nx.clone(), None, inner, line);
    lw.emit(for_loop(&j, i64c(1), ny.clone(), None, vec![rows], line).kind);
    let mut call_args = vec![
        (
            None,
            Lowered::new(vrir::Expr::var(&xe), Ty::array(x.ty.elem, 1)),
        ),
        (
            None,
            Lowered::new(vrir::Expr::var(&ye), Ty::array(y.ty.elem, 1)),
        ),
    ];
    call_args.extend(more);
    let r = apply_fun(lw, &f, call_args, line)?;
    if r.ty.rank > 1 {
        return Err(lw.unsupported(
            "`outer` with a function returning a matrix",
            line,
            "compiled for functions returning vectors",
        ));
    }
    let r = lw.hoist(r);
    let got = if r.ty.rank == 0 {
        i64c(1)
    } else {
        len(&r.expr)
    };
    lw.raise_if_counts(
        bin(vrir::BinOp::Ne, got.clone(), total.clone()),
        "outer_length",
        [total, got],
    );
    shaped(lw, r, vec![nx, ny], line)
}

/// `apply(X, MARGIN, FUN, ..., simplify = TRUE)` over the rows (1) or columns (2) of a
/// matrix; each row or column reaches FUN as a vector.
fn apply(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    let m = r_match(lw, "apply", args, line)?;
    accept_defaults(lw, "apply", args, &m, &["simplify"], line)?;
    let x = lw.expr(required(lw, &m, args, "apply", "X", line)?)?;
    if x.ty.rank != 2 {
        return Err(lw.unsupported(
            &format!("`apply` to a {}", x.ty),
            line,
            "compiled for matrices",
        ));
    }
    let margin = match required(lw, &m, args, "apply", "MARGIN", line)?.kind {
        ExprKind::Double(v) if v == 1.0 || v == 2.0 => v as u32,
        ExprKind::Int(v) if v == 1 || v == 2 => v as u32,
        _ => {
            return Err(lw.unsupported(
                "`MARGIN` of `apply`",
                line,
                "compiled for MARGIN 1 (rows) or 2 (columns), written in the call",
            ))
        }
    };
    let f = fun_ref(
        lw,
        required(lw, &m, args, "apply", "FUN", line)?,
        "apply",
        line,
    )?;
    let more = extras(lw, args, &m.dots)?;
    let x = lw.hoist(x);
    let n = lw
        .hoist(Lowered::new(
            vrir::Expr::Dim {
                arg: Box::new(x.expr.clone()),
                axis: margin - 1,
            },
            Ty::scalar(ScalarType::I64),
        ))
        .expr;
    collect(
        lw,
        &n,
        Collect::Simplify,
        Some("apply_empty"),
        true,
        line,
        |lw, k| {
            let indices = if margin == 1 {
                vec![k, all()]
            } else {
                vec![all(), k]
            };
            let slice = Lowered::new(
                vrir::Expr::Index {
                    array: Box::new(x.expr.clone()),
                    indices,
                    flags: IndexFlags::default(),
                },
                Ty::array(x.ty.elem, 1),
            );
            let mut call_args = vec![(None, slice)];
            call_args.extend(more);
            apply_fun(lw, &f, call_args, line)
        },
    )
}
