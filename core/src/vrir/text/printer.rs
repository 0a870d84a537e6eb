//! The canonical printer of the text form.
//!
//! The AST is first turned into a small layout tree ([`Doc`]) and then written out: a list
//! goes on one line when it fits in [`WIDTH`] columns and is not a statement list; otherwise
//! its first few parts stay on the opening line and each further part goes on a line of its
//! own, indented two spaces deeper. Output depends only on the AST, so printing is stable.

use super::literal::float_text;
use crate::vrir::ast::*;
use crate::vrir::types::Type;

/// Lines longer than this are broken where the layout allows.
const WIDTH: usize = 100;

/// A layout tree: an atom, a parenthesized list, or a group of atoms that always stays on
/// one line without parentheses (a keyword and its value).
enum Doc {
    Atom(String),
    Group(Vec<Doc>),
    List {
        items: Vec<Doc>,
        /// How many items stay on the opening line when the list is broken.
        keep: usize,
        /// Must be broken: modules, functions, statement lists and every list holding one.
        broken: bool,
    },
}

impl Doc {
    fn atom(s: impl Into<String>) -> Doc {
        Doc::Atom(s.into())
    }
    /// A list that goes on one line when it fits (and holds no statement list).
    fn list(items: Vec<Doc>, keep: usize) -> Doc {
        let broken = items.iter().any(Doc::is_broken);
        Doc::List {
            items,
            keep,
            broken,
        }
    }
    /// A list whose parts after the first `keep` always go on lines of their own.
    fn broken(items: Vec<Doc>, keep: usize) -> Doc {
        Doc::List {
            items,
            keep,
            broken: true,
        }
    }

    fn is_broken(&self) -> bool {
        match self {
            Doc::Atom(_) => false,
            Doc::Group(items) => items.iter().any(Doc::is_broken),
            Doc::List { broken, .. } => *broken,
        }
    }

    fn write_flat(&self, out: &mut String) {
        match self {
            Doc::Atom(s) => out.push_str(s),
            Doc::Group(items) => write_spaced(items, out),
            Doc::List { items, .. } => {
                out.push('(');
                write_spaced(items, out);
                out.push(')');
            }
        }
    }

    /// The width of the flat form, or `None` once it exceeds `budget` (so that deciding
    /// whether a big list fits costs no more than `budget` characters of work).
    fn flat_width(&self, budget: usize) -> Option<usize> {
        let width = match self {
            Doc::Atom(s) => s.chars().count(),
            Doc::Group(items) => spaced_width(items, budget)?,
            Doc::List { items, .. } => spaced_width(items, budget.checked_sub(2)?)? + 2,
        };
        (width <= budget).then_some(width)
    }

    /// Write the doc starting at column `indent` of a fresh line.
    fn write(&self, indent: usize, out: &mut String) {
        let Doc::List {
            items,
            keep,
            broken,
        } = self
        else {
            return self.write_flat(out);
        };
        let budget = WIDTH.saturating_sub(indent);
        if !broken && self.flat_width(budget).is_some() {
            return self.write_flat(out);
        }
        // Keep as many of the first `keep` items on the opening line as fit (at least the head).
        let mut keep = (*keep).clamp(1, items.len().max(1)).min(items.len());
        while keep > 1 && spaced_width(&items[..keep], budget.saturating_sub(1)).is_none() {
            keep -= 1;
        }
        out.push('(');
        write_spaced(&items[..keep], out);
        for item in &items[keep..] {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', indent + 2));
            item.write(indent + 2, out);
        }
        out.push(')');
    }
}

fn spaced_width(items: &[Doc], budget: usize) -> Option<usize> {
    let mut width = items.len().saturating_sub(1);
    for item in items {
        width += item.flat_width(budget.checked_sub(width)?)?;
    }
    (width <= budget).then_some(width)
}

fn write_spaced(items: &[Doc], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        item.write_flat(out);
    }
}

pub fn print_module(m: &Module) -> String {
    let mut items = vec![
        Doc::atom("module"),
        Doc::atom(&m.name),
        Doc::Group(vec![
            Doc::atom(":index-base"),
            Doc::atom(m.index_base.to_string()),
        ]),
    ];
    items.extend(m.functions.iter().map(function));
    let mut out = String::new();
    Doc::broken(items, 3).write(0, &mut out);
    out.push('\n');
    out
}

pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    expr(e).write_flat(&mut out);
    out
}

fn function(f: &Function) -> Doc {
    let params = f
        .params
        .iter()
        .map(|p| {
            let mut items = vec![Doc::atom(&p.name), ty(&p.ty)];
            if p.restrict {
                items.push(Doc::atom(":restrict"));
            }
            Doc::list(items, 0)
        })
        .collect();
    let mut items = vec![
        Doc::atom("function"),
        Doc::atom(&f.name),
        Doc::list(params, 0),
        Doc::list(f.results.iter().map(ty).collect(), 0),
    ];
    items.extend(line_group(f.line));
    let keep = items.len();
    let mut locals = vec![Doc::atom("locals")];
    locals.extend(
        f.locals
            .iter()
            .map(|l| Doc::list(vec![Doc::atom(&l.name), ty(&l.ty)], 0)),
    );
    items.push(Doc::list(locals, 1));
    items.extend(f.body.iter().map(stmt));
    Doc::broken(items, keep)
}

fn line_group(line: Option<u32>) -> Option<Doc> {
    line.map(|n| Doc::Group(vec![Doc::atom(":line"), Doc::atom(n.to_string())]))
}

fn ty(t: &Type) -> Doc {
    Doc::atom(t.to_string())
}

fn block(b: &Block) -> Doc {
    Doc::broken(block_items(b), 1)
}

/// `block` or `gpu` followed by the statements.
fn block_items(b: &Block) -> Vec<Doc> {
    let mut items = vec![Doc::atom(if b.on_gpu { "gpu" } else { "block" })];
    items.extend(b.stmts.iter().map(stmt));
    items
}

fn stmt(s: &Stmt) -> Doc {
    let (mut items, keep, broken) = match &s.kind {
        StmtKind::Block(b) => (block_items(b), 1, true),
        StmtKind::Assign { targets, value } => match targets.as_slice() {
            [target] => (
                vec![Doc::atom("set"), lvalue(target), expr(value)],
                2,
                false,
            ),
            _ => {
                let targets = Doc::list(targets.iter().map(lvalue).collect(), 0);
                (vec![Doc::atom("mset"), targets, expr(value)], 2, false)
            }
        },
        StmtKind::If { cond, then, els } => {
            let mut items = vec![Doc::atom("if"), expr(cond), block(then)];
            items.extend(els.as_ref().map(block));
            (items, 2, true)
        }
        StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
            let head = if matches!(s.kind, StmtKind::For { .. }) {
                "for"
            } else {
                "parfor"
            };
            let vars = Doc::list(vars.iter().map(Doc::atom).collect(), 0);
            (
                vec![Doc::atom(head), vars, expr(domain), block(body)],
                3,
                true,
            )
        }
        StmtKind::While { cond, body } => {
            (vec![Doc::atom("while"), expr(cond), block(body)], 2, true)
        }
        StmtKind::Break => (vec![Doc::atom("break")], 1, false),
        StmtKind::Continue => (vec![Doc::atom("continue")], 1, false),
        StmtKind::Return { values } => (head_and("return", values.iter().map(expr)), 1, false),
        StmtKind::Expr { expr: e } => (vec![Doc::atom("expr"), expr(e)], 1, false),
        StmtKind::Alloc { var, dims } => {
            let mut items = vec![Doc::atom("alloc"), Doc::atom(var)];
            items.extend(dims.iter().map(expr));
            (items, 2, false)
        }
        StmtKind::Free { var } => (vec![Doc::atom("free"), Doc::atom(var)], 2, false),
        StmtKind::RefIncr { var } => (vec![Doc::atom("refincr"), Doc::atom(var)], 2, false),
        StmtKind::RefDecr { var } => (vec![Doc::atom("refdecr"), Doc::atom(var)], 2, false),
    };
    items.extend(line_group(s.line));
    Doc::List {
        items,
        keep,
        broken,
    }
}

fn head_and(head: &str, rest: impl Iterator<Item = Doc>) -> Vec<Doc> {
    let mut items = vec![Doc::atom(head)];
    items.extend(rest);
    items
}

fn lvalue(target: &LValue) -> Doc {
    match target {
        LValue::Var { name } => Doc::atom(name),
        LValue::Index {
            array,
            indices,
            flags,
        } => {
            let mut items = vec![Doc::atom("index"), Doc::atom(array)];
            items.extend(indices.iter().map(expr));
            items.extend(index_flags(flags));
            Doc::list(items, 3)
        }
    }
}

fn index_flags(flags: &IndexFlags) -> impl Iterator<Item = Doc> {
    [
        (flags.negative, ":neg"),
        (flags.flatten, ":flat"),
        (!flags.check, ":nocheck"),
        (flags.view, ":view"),
    ]
    .into_iter()
    .filter(|(set, _)| *set)
    .map(|(_, k)| Doc::atom(k))
}

/// `:acc T`.
fn accumulator(a: Accum) -> Doc {
    Doc::Group(vec![Doc::atom(":acc"), Doc::atom(a.name())])
}

fn literal(l: &Literal) -> Doc {
    match *l {
        Literal::Bool(b) => Doc::atom(b.to_string()),
        Literal::I32(v) => Doc::atom(format!("{v}:i32")),
        Literal::I64(v) => Doc::atom(v.to_string()),
        Literal::F32(v) => Doc::atom(format!("{}:f32", float_text(v))),
        Literal::F64(v) => Doc::atom(float_text(v)),
        Literal::C64([re, im]) => Doc::list(
            vec![
                Doc::atom("c64"),
                Doc::atom(float_text(re)),
                Doc::atom(float_text(im)),
            ],
            3,
        ),
        Literal::C128([re, im]) => Doc::list(
            vec![
                Doc::atom("c128"),
                Doc::atom(float_text(re)),
                Doc::atom(float_text(im)),
            ],
            3,
        ),
    }
}

fn optional(e: &Option<Box<Expr>>) -> Doc {
    e.as_deref().map_or_else(|| Doc::atom("_"), expr)
}

fn expr(e: &Expr) -> Doc {
    match e {
        Expr::Const { value } => literal(value),
        Expr::Var { name } => Doc::atom(name),
        Expr::Unary { op, arg } => {
            let head = match op {
                UnOp::Neg => "neg",
                UnOp::Not => "not",
            };
            Doc::list(vec![Doc::atom(head), expr(arg)], 2)
        }
        Expr::Binary { op, lhs, rhs } => {
            Doc::list(vec![Doc::atom(op.symbol()), expr(lhs), expr(rhs)], 2)
        }
        Expr::Cast { to, arg } => Doc::list(vec![Doc::atom("cast"), ty(to), expr(arg)], 3),
        Expr::Call { func, args } | Expr::Map { func, args } => {
            let head = if matches!(e, Expr::Call { .. }) {
                "call"
            } else {
                "map"
            };
            let mut items = vec![Doc::atom(head), Doc::atom(func)];
            items.extend(args.iter().map(expr));
            Doc::list(items, 3)
        }
        Expr::Lib { func, args } => Doc::list(head_and(func.name(), args.iter().map(expr)), 2),
        Expr::Reduce { op, arg, axis, acc } => {
            let mut items = vec![Doc::atom(op.name()), expr(arg)];
            items.extend(
                axis.map(|k| Doc::Group(vec![Doc::atom(":axis"), Doc::atom(k.to_string())])),
            );
            items.extend(acc.map(accumulator));
            Doc::list(items, 2)
        }
        Expr::Scan { op, arg, acc } => {
            let mut items = vec![Doc::atom(op.name()), expr(arg)];
            items.extend(acc.map(accumulator));
            Doc::list(items, 2)
        }
        Expr::Alloc { init, ty: t, dims } => {
            let head = match init {
                AllocInit::Zeros => "zeros",
                AllocInit::Ones => "ones",
                AllocInit::Empty => "empty",
                AllocInit::Fill { .. } => "fill",
            };
            let mut items = vec![Doc::atom(head), Doc::atom(t.to_string())];
            if let AllocInit::Fill { value } = init {
                items.push(expr(value));
            }
            items.extend(dims.iter().map(expr));
            Doc::list(items, 2)
        }
        Expr::Dim { arg, axis } => Doc::list(
            vec![Doc::atom("dim"), expr(arg), Doc::atom(axis.to_string())],
            2,
        ),
        Expr::Range {
            start: None,
            stop: None,
            step: None,
        } => Doc::atom(":"),
        Expr::Range { start, stop, step } => {
            let mut items = vec![Doc::atom("range"), optional(start), optional(stop)];
            items.extend(step.as_deref().map(expr));
            Doc::list(items, 2)
        }
        Expr::Domain { ranges } => Doc::list(head_and("domain", ranges.iter().map(expr)), 2),
        Expr::Tuple { items } => Doc::list(head_and("tuple", items.iter().map(expr)), 2),
        Expr::TupleGet { arg, index } => Doc::list(
            vec![Doc::atom("tget"), expr(arg), Doc::atom(index.to_string())],
            2,
        ),
        Expr::Index {
            array,
            indices,
            flags,
        } => {
            let mut items = vec![Doc::atom("index"), expr(array)];
            items.extend(indices.iter().map(expr));
            items.extend(index_flags(flags));
            Doc::list(items, 2)
        }
        Expr::AtomicAdd {
            array,
            indices,
            value,
        } => {
            let mut items = vec![Doc::atom("atomic-add"), Doc::atom(array)];
            items.extend(indices.iter().map(expr));
            items.push(Doc::Group(vec![Doc::atom(":value"), expr(value)]));
            Doc::list(items, 3)
        }
        Expr::AtomicCas {
            array,
            indices,
            expected,
            new,
        } => {
            let mut items = vec![Doc::atom("atomic-cas"), Doc::atom(array)];
            items.extend(indices.iter().map(expr));
            items.push(Doc::Group(vec![Doc::atom(":expected"), expr(expected)]));
            items.push(Doc::Group(vec![Doc::atom(":new"), expr(new)]));
            Doc::list(items, 3)
        }
    }
}
