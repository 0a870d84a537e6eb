//! From the reader's tree of atoms and lists to the VRIR AST (docs/vrir-text.md).
//!
//! Syntax only: the parser checks the shape of every construct (its head, the number and
//! kind of its parts, a library function's arity) and leaves types to the verifier.
//! Every error names the line and column of the offending atom or list, or the closing
//! parenthesis of a list that lacks a part.

use super::lexer::{error_at, read, Parsed, Pos, Sexp, SexpKind};
use super::literal::{complex_part_text, read_literal, FloatText};
use crate::vrir::ast::*;
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};

pub fn parse_module(src: &str) -> Parsed<Module> {
    let forms = read(src)?;
    let mut forms = forms.iter();
    let Some(module) = forms.next() else {
        return Err(error_at(
            Pos { line: 1, col: 1 },
            "expected `(module ...)`, found no input",
        ));
    };
    let m = module_form(module)?;
    if let Some(extra) = forms.next() {
        return Err(error_at(
            extra.pos,
            format!("unexpected {} after the module", extra.describe()),
        ));
    }
    Ok(m)
}

pub fn parse_type(src: &str) -> Parsed<Type> {
    let forms = read(src)?;
    let Some(first) = forms.first() else {
        return Err(error_at(
            Pos { line: 1, col: 1 },
            "expected a type, found no input",
        ));
    };
    let ty = type_of(first)?;
    if let Some(extra) = forms.get(1) {
        return Err(error_at(
            extra.pos,
            format!("unexpected {} after the type", extra.describe()),
        ));
    }
    Ok(ty)
}

/// True for a name that the text form can read back as a variable wherever one is used:
/// the syntax `[A-Za-z_][A-Za-z0-9_.]*`, and not a word that reads as a constant or an
/// absent range bound (`true`, `false`, `nan`, `inf`, `_`). The verifier uses this so that
/// every verified module survives a trip through the text form.
pub fn is_plain_name(s: &str) -> bool {
    has_name_syntax(s) && !matches!(s, "true" | "false" | "nan" | "inf" | "_")
}

fn has_name_syntax(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// The parts of one list after its head, read front to back.
struct Parts<'a> {
    /// The list's head (for messages) and where it ends (for "missing part" errors).
    head: &'a str,
    end: Pos,
    items: &'a [Sexp],
}

impl<'a> Parts<'a> {
    /// Split a list node into its head atom and its parts; `what` names the expected
    /// construct for the error when the node is not a list with an atom head.
    fn of(node: &'a Sexp, what: &str) -> Parsed<Parts<'a>> {
        let SexpKind::List(items) = &node.kind else {
            return Err(error_at(
                node.pos,
                format!("expected {what}, found {}", node.describe()),
            ));
        };
        match items.first() {
            Some(first) => match first.atom() {
                Some(head) => Ok(Parts {
                    head,
                    end: node.end,
                    items: &items[1..],
                }),
                None => Err(error_at(
                    first.pos,
                    format!("expected a name at the head of {what}, found a list"),
                )),
            },
            None => Err(error_at(node.pos, format!("expected {what}, found `()`"))),
        }
    }

    fn peek(&self) -> Option<&'a Sexp> {
        self.items.first()
    }

    /// The next part, if there is one.
    fn next_opt(&mut self) -> Option<&'a Sexp> {
        let (first, rest) = self.items.split_first()?;
        self.items = rest;
        Some(first)
    }

    fn next(&mut self, what: &str) -> Parsed<&'a Sexp> {
        match self.items.split_first() {
            Some((first, rest)) => {
                self.items = rest;
                Ok(first)
            }
            None => Err(error_at(
                self.end,
                format!("missing {what} in `({} ...)`", self.head),
            )),
        }
    }

    /// Everything left must have been read.
    fn finish(&self) -> Parsed<()> {
        match self.items.first() {
            Some(extra) => Err(error_at(
                extra.pos,
                format!("unexpected {} in `({} ...)`", extra.describe(), self.head),
            )),
            None => Ok(()),
        }
    }

    /// Remove a trailing `KEYWORD VALUE` pair, if the list ends with one.
    fn take_trailing(&mut self, keyword: &str) -> Option<&'a Sexp> {
        let n = self.items.len();
        if n >= 2 && self.items[n - 2].atom() == Some(keyword) {
            let value = &self.items[n - 1];
            self.items = &self.items[..n - 2];
            Some(value)
        } else {
            None
        }
    }

    fn name(&mut self, what: &str) -> Parsed<String> {
        name(self.next(what)?, what)
    }

    fn expr(&mut self, what: &str) -> Parsed<Expr> {
        expr(self.next(what)?)
    }

    /// Every remaining part, as expressions.
    fn rest_exprs(&mut self) -> Parsed<Vec<Expr>> {
        let items = std::mem::take(&mut self.items);
        items.iter().map(expr).collect()
    }

    /// Expressions up to the first keyword (the remaining parts start there).
    fn exprs_until_keyword(&mut self) -> Parsed<Vec<Expr>> {
        let n = self
            .items
            .iter()
            .position(|s| s.keyword().is_some())
            .unwrap_or(self.items.len());
        let (positional, rest) = self.items.split_at(n);
        self.items = rest;
        positional.iter().map(expr).collect()
    }

    /// `KEYWORD VALUE` as the next two parts.
    fn keyword_arg(&mut self, keyword: &str) -> Parsed<&'a Sexp> {
        let k = self.next(&format!("`{keyword} ...`"))?;
        if k.atom() != Some(keyword) {
            return Err(error_at(
                k.pos,
                format!(
                    "expected `{keyword}` in `({} ...)`, found {}",
                    self.head,
                    k.describe()
                ),
            ));
        }
        self.next(&format!("the value of `{keyword}`"))
    }
}

fn name(node: &Sexp, what: &str) -> Parsed<String> {
    match node.atom() {
        Some(s) if has_name_syntax(s) => Ok(s.to_string()),
        _ => Err(error_at(
            node.pos,
            format!("expected {what} (a name), found {}", node.describe()),
        )),
    }
}

/// A non-negative integer written without suffix: `:line`, `dim`, `tget`, `:axis`.
/// The type after `:acc`.
fn accumulator(node: &Sexp) -> Parsed<Accum> {
    node.atom().and_then(Accum::from_name).ok_or_else(|| {
        error_at(
            node.pos,
            format!(
                "expected an accumulator type (f80), found {}",
                node.describe()
            ),
        )
    })
}

fn small_int(node: &Sexp, what: &str) -> Parsed<u32> {
    node.atom()
        .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<u32>().ok())
        .ok_or_else(|| {
            error_at(
                node.pos,
                format!(
                    "expected {what} (a non-negative integer), found {}",
                    node.describe()
                ),
            )
        })
}

// ---------------------------------------------------------------- module, functions

fn module_form(node: &Sexp) -> Parsed<Module> {
    let mut parts = Parts::of(node, "`(module ...)`")?;
    if parts.head != "module" {
        return Err(error_at(
            node.pos,
            format!("expected `(module ...)`, found {}", node.describe()),
        ));
    }
    let name = parts.name("the module name")?;
    let base = parts.keyword_arg(":index-base")?;
    let index_base = match base.atom() {
        Some("0") => 0,
        Some("1") => 1,
        _ => {
            return Err(error_at(
                base.pos,
                format!("`:index-base` must be 0 or 1, found {}", base.describe()),
            ))
        }
    };
    let functions = parts.items.iter().map(function).collect::<Parsed<_>>()?;
    Ok(Module {
        name,
        index_base,
        functions,
    })
}

fn function(node: &Sexp) -> Parsed<Function> {
    let mut parts = Parts::of(node, "`(function ...)`")?;
    if parts.head != "function" {
        return Err(error_at(
            node.pos,
            format!("expected `(function ...)`, found {}", node.describe()),
        ));
    }
    let name = parts.name("the function name")?;
    let params = list_items(parts.next("the parameter list")?, "the parameter list")?
        .iter()
        .map(param)
        .collect::<Parsed<_>>()?;
    let results = list_items(parts.next("the result list")?, "the result list")?
        .iter()
        .map(type_of)
        .collect::<Parsed<_>>()?;
    let mut line = None;
    if parts.peek().is_some_and(|s| s.atom() == Some(":line")) {
        line = Some(small_int(parts.keyword_arg(":line")?, "a line number")?);
    }
    let mut locals = Vec::new();
    if let Some(list) = parts.peek().filter(|s| head_of(s) == Some("locals")) {
        parts.next("locals")?;
        locals = list_items(list, "locals")?[1..]
            .iter()
            .map(local)
            .collect::<Parsed<_>>()?;
    }
    let body = parts.items.iter().map(stmt).collect::<Parsed<_>>()?;
    Ok(Function {
        name,
        params,
        results,
        locals,
        body,
        line,
    })
}

fn head_of(node: &Sexp) -> Option<&str> {
    match &node.kind {
        SexpKind::List(items) => items.first().and_then(Sexp::atom),
        SexpKind::Atom(_) => None,
    }
}

fn list_items<'a>(node: &'a Sexp, what: &str) -> Parsed<&'a [Sexp]> {
    match &node.kind {
        SexpKind::List(items) => Ok(items),
        SexpKind::Atom(_) => Err(error_at(
            node.pos,
            format!("expected {what} (a list), found {}", node.describe()),
        )),
    }
}

/// `(NAME TYPE)` or `(NAME TYPE :restrict)`.
fn param(node: &Sexp) -> Parsed<Param> {
    let items = list_items(node, "a parameter `(NAME TYPE)`")?;
    let (restrict, items) = match items.split_last() {
        Some((last, rest)) if last.atom() == Some(":restrict") => (true, rest),
        _ => (false, items),
    };
    match items {
        [n, t] => Ok(Param {
            name: name(n, "a parameter name")?,
            ty: type_of(t)?,
            restrict,
        }),
        _ => Err(error_at(
            node.pos,
            "expected a parameter `(NAME TYPE)` or `(NAME TYPE :restrict)`",
        )),
    }
}

/// `(NAME TYPE)`.
fn local(node: &Sexp) -> Parsed<Local> {
    match list_items(node, "a local `(NAME TYPE)`")? {
        [n, t] => Ok(Local {
            name: name(n, "a local name")?,
            ty: type_of(t)?,
        }),
        _ => Err(error_at(node.pos, "expected a local `(NAME TYPE)`")),
    }
}

// ---------------------------------------------------------------- types

fn type_of(node: &Sexp) -> Parsed<Type> {
    match &node.kind {
        SexpKind::Atom(s) => atom_type(s).map_err(|msg| error_at(node.pos, msg)),
        SexpKind::List(_) => {
            let mut parts = Parts::of(node, "a type")?;
            match parts.head {
                "tuple" => {
                    let items = parts.items.iter().map(type_of).collect::<Parsed<_>>()?;
                    Ok(Type::Tuple { items })
                }
                "fn" => {
                    let params =
                        list_items(parts.next("the parameter types")?, "the parameter types")?;
                    let results = list_items(parts.next("the result types")?, "the result types")?;
                    parts.finish()?;
                    Ok(Type::Func {
                        params: params.iter().map(type_of).collect::<Parsed<_>>()?,
                        results: results.iter().map(type_of).collect::<Parsed<_>>()?,
                    })
                }
                other => Err(error_at(node.pos, format!("unknown type `({other} ...)`"))),
            }
        }
    }
}

fn atom_type(s: &str) -> Result<Type, String> {
    match s {
        "range" => return Ok(Type::Range),
        "void" => return Ok(Type::Void),
        _ => {}
    }
    if let Some(elem) = ScalarType::from_name(s) {
        return Ok(Type::Scalar { elem });
    }
    let unknown = || format!("unknown type `{s}`");
    let (base, rest) = s.split_once('[').ok_or_else(unknown)?;
    let inside = rest.strip_suffix(']').ok_or_else(unknown)?;
    let count = |n: &str| {
        n.parse::<u32>()
            .ok()
            .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))
    };
    if base == "domain" {
        let ndims =
            count(inside).ok_or_else(|| format!("bad domain type `{s}`: expected domain[N]"))?;
        return Ok(Type::Domain { ndims });
    }
    let elem = ScalarType::from_name(base).ok_or_else(unknown)?;
    let bad = || format!("bad array type `{s}`: expected ELEM[NDIMS,row|col|strided]");
    let (n, layout) = inside.split_once(',').ok_or_else(bad)?;
    let ndims = count(n).ok_or_else(bad)?;
    let layout = Layout::from_name(layout).ok_or_else(bad)?;
    Ok(Type::Array(ArrayType {
        elem,
        ndims,
        layout,
    }))
}

fn array_type(node: &Sexp) -> Parsed<ArrayType> {
    match type_of(node)? {
        Type::Array(a) => Ok(a),
        other => Err(error_at(
            node.pos,
            format!("expected an array type, found `{other}`"),
        )),
    }
}

// ---------------------------------------------------------------- statements

fn stmt(node: &Sexp) -> Parsed<Stmt> {
    let mut parts = Parts::of(node, "a statement")?;
    let line = parts
        .take_trailing(":line")
        .map(|n| small_int(n, "a line number"))
        .transpose()?;
    let kind = match parts.head {
        "block" | "gpu" => StmtKind::Block(block_body(&mut parts)?),
        "set" => {
            let target = lvalue(parts.next("the target")?)?;
            let value = parts.expr("the value")?;
            parts.finish()?;
            StmtKind::Assign {
                targets: vec![target],
                value,
            }
        }
        "mset" => {
            let targets = list_items(parts.next("the target list")?, "the target list")?
                .iter()
                .map(lvalue)
                .collect::<Parsed<_>>()?;
            let value = parts.expr("the value")?;
            parts.finish()?;
            StmtKind::Assign { targets, value }
        }
        "if" => {
            let cond = parts.expr("the condition")?;
            let then = block(parts.next("the then block")?)?;
            let els = parts.next_opt().map(block).transpose()?;
            parts.finish()?;
            StmtKind::If { cond, then, els }
        }
        "for" | "parfor" => {
            let vars = list_items(parts.next("the loop variables")?, "the loop variables")?
                .iter()
                .map(|v| name(v, "a loop variable"))
                .collect::<Parsed<_>>()?;
            let domain = parts.expr("the domain")?;
            let body = block(parts.next("the loop body")?)?;
            parts.finish()?;
            if parts.head == "for" {
                StmtKind::For { vars, domain, body }
            } else {
                StmtKind::Parfor { vars, domain, body }
            }
        }
        "while" => {
            let cond = parts.expr("the condition")?;
            let body = block(parts.next("the loop body")?)?;
            parts.finish()?;
            StmtKind::While { cond, body }
        }
        "break" => {
            parts.finish()?;
            StmtKind::Break
        }
        "continue" => {
            parts.finish()?;
            StmtKind::Continue
        }
        "return" => StmtKind::Return {
            values: parts.rest_exprs()?,
        },
        "expr" => {
            let expr = parts.expr("the expression")?;
            parts.finish()?;
            StmtKind::Expr { expr }
        }
        "alloc" => {
            let var = parts.name("the variable")?;
            StmtKind::Alloc {
                var,
                dims: parts.rest_exprs()?,
            }
        }
        "free" | "refincr" | "refdecr" => {
            let var = parts.name("the variable")?;
            parts.finish()?;
            match parts.head {
                "free" => StmtKind::Free { var },
                "refincr" => StmtKind::RefIncr { var },
                _ => StmtKind::RefDecr { var },
            }
        }
        other => {
            let hint = if is_expr_head(other) {
                " (write `(expr ...)` to evaluate an expression)"
            } else {
                ""
            };
            return Err(error_at(
                node.pos,
                format!("unknown statement `({other} ...)`{hint}"),
            ));
        }
    };
    Ok(Stmt { kind, line })
}

/// `(block STMT ...)` or `(gpu STMT ...)` as the body of an if or a loop (no `:line`: a
/// body is a statement list, not a statement).
fn block(node: &Sexp) -> Parsed<Block> {
    let mut parts = Parts::of(node, "a `(block ...)`")?;
    let n = parts.items.len();
    if n >= 2 && parts.items[n - 2].atom() == Some(":line") {
        let pos = parts.items[n - 2].pos;
        return Err(error_at(
            pos,
            "a body block takes no `:line`; put it at the end of the statement",
        ));
    }
    match parts.head {
        "block" | "gpu" => block_body(&mut parts),
        _ => Err(error_at(
            node.pos,
            format!(
                "expected `(block ...)` or `(gpu ...)`, found {}",
                node.describe()
            ),
        )),
    }
}

fn block_body(parts: &mut Parts) -> Parsed<Block> {
    let on_gpu = parts.head == "gpu";
    let items = std::mem::take(&mut parts.items);
    Ok(Block {
        on_gpu,
        stmts: items.iter().map(stmt).collect::<Parsed<_>>()?,
    })
}

fn lvalue(node: &Sexp) -> Parsed<LValue> {
    if node.atom().is_some() {
        return Ok(LValue::Var {
            name: name(node, "an assignment target")?,
        });
    }
    let mut parts = Parts::of(node, "an assignment target")?;
    if parts.head != "index" {
        return Err(error_at(
            node.pos,
            format!(
                "expected a variable or `(index ...)` as target, found {}",
                node.describe()
            ),
        ));
    }
    let array = parts.name("the array variable")?;
    let (indices, flags) = indices_and_flags(&mut parts)?;
    Ok(LValue::Index {
        array,
        indices,
        flags,
    })
}

// ---------------------------------------------------------------- expressions

/// Heads of expression lists, for the hint when one appears where a statement belongs.
fn is_expr_head(head: &str) -> bool {
    matches!(
        head,
        "neg"
            | "not"
            | "cast"
            | "call"
            | "zeros"
            | "ones"
            | "empty"
            | "fill"
            | "dim"
            | "range"
            | "domain"
            | "tuple"
            | "tget"
            | "map"
            | "index"
            | "atomic-add"
            | "atomic-cas"
            | "c64"
            | "c128"
    ) || BinOp::from_symbol(head).is_some()
        || LibFn::from_name(head).is_some()
        || ReduceOp::from_name(head).is_some()
        || ScanOp::from_name(head).is_some()
}

fn expr(node: &Sexp) -> Parsed<Expr> {
    match &node.kind {
        SexpKind::Atom(s) => atom_expr(s).map_err(|msg| error_at(node.pos, msg)),
        SexpKind::List(_) => list_expr(node),
    }
}

fn atom_expr(s: &str) -> Result<Expr, String> {
    if s == ":" {
        return Ok(Expr::Range {
            start: None,
            stop: None,
            step: None,
        });
    }
    if s.starts_with(':') {
        return Err(format!(
            "unexpected keyword `{s}` where an expression is expected"
        ));
    }
    if let Some(value) = read_literal(s)? {
        return Ok(Expr::Const { value });
    }
    if has_name_syntax(s) {
        return Ok(Expr::Var {
            name: s.to_string(),
        });
    }
    Err(format!("`{s}` is not a constant or a name"))
}

/// A part of a complex constant: a float atom without type suffix.
fn complex_part<T: FloatText>(node: &Sexp) -> Parsed<T> {
    let text = node.atom().unwrap_or("");
    complex_part_text(text).map_err(|msg| {
        let found = node.describe();
        error_at(
            node.pos,
            msg.unwrap_or_else(|| {
                format!("expected a float such as 1.0 in a complex constant, found {found}")
            }),
        )
    })
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

fn list_expr(node: &Sexp) -> Parsed<Expr> {
    let mut parts = Parts::of(node, "an expression")?;
    let head = parts.head;
    let e = match head {
        "neg" | "not" => {
            let op = if head == "neg" { UnOp::Neg } else { UnOp::Not };
            Expr::Unary {
                op,
                arg: boxed(parts.expr("the operand")?),
            }
        }
        "cast" => {
            let to = type_of(parts.next("the target type")?)?;
            Expr::Cast {
                to,
                arg: boxed(parts.expr("the operand")?),
            }
        }
        "call" | "map" => {
            let func = parts.name("the function name")?;
            let args = parts.rest_exprs()?;
            if head == "call" {
                Expr::Call { func, args }
            } else {
                Expr::Map { func, args }
            }
        }
        "zeros" | "ones" | "empty" | "fill" => {
            let ty = array_type(parts.next("the array type")?)?;
            let init = match head {
                "zeros" => AllocInit::Zeros,
                "ones" => AllocInit::Ones,
                "empty" => AllocInit::Empty,
                _ => AllocInit::Fill {
                    value: boxed(parts.expr("the fill value")?),
                },
            };
            Expr::Alloc {
                init,
                ty,
                dims: parts.rest_exprs()?,
            }
        }
        "dim" | "tget" => {
            let arg = boxed(parts.expr("the operand")?);
            let k = small_int(parts.next("the index")?, "a literal index")?;
            if head == "dim" {
                Expr::Dim { arg, axis: k }
            } else {
                Expr::TupleGet { arg, index: k }
            }
        }
        "range" => {
            let start = range_bound(parts.next("the start (or `_`)")?)?;
            let stop = range_bound(parts.next("the stop (or `_`)")?)?;
            let step = parts.next_opt().map(range_bound).transpose()?.flatten();
            Expr::Range { start, stop, step }
        }
        "domain" => Expr::Domain {
            ranges: parts.rest_exprs()?,
        },
        "tuple" => Expr::Tuple {
            items: parts.rest_exprs()?,
        },
        "index" => {
            let array = boxed(parts.expr("the array")?);
            let (indices, flags) = indices_and_flags(&mut parts)?;
            Expr::Index {
                array,
                indices,
                flags,
            }
        }
        "atomic-add" => {
            let array = parts.name("the array variable")?;
            let indices = parts.exprs_until_keyword()?;
            let value = boxed(expr(parts.keyword_arg(":value")?)?);
            Expr::AtomicAdd {
                array,
                indices,
                value,
            }
        }
        "atomic-cas" => {
            let array = parts.name("the array variable")?;
            let indices = parts.exprs_until_keyword()?;
            let expected = boxed(expr(parts.keyword_arg(":expected")?)?);
            let new = boxed(expr(parts.keyword_arg(":new")?)?);
            Expr::AtomicCas {
                array,
                indices,
                expected,
                new,
            }
        }
        "c64" => {
            let re = complex_part(parts.next("the real part")?)?;
            let im = complex_part(parts.next("the imaginary part")?)?;
            Expr::Const {
                value: Literal::C64([re, im]),
            }
        }
        "c128" => {
            let re = complex_part(parts.next("the real part")?)?;
            let im = complex_part(parts.next("the imaginary part")?)?;
            Expr::Const {
                value: Literal::C128([re, im]),
            }
        }
        _ => {
            if let Some(op) = BinOp::from_symbol(head) {
                let lhs = boxed(parts.expr("the left operand")?);
                let rhs = boxed(parts.expr("the right operand")?);
                Expr::Binary { op, lhs, rhs }
            } else if let Some(func) = LibFn::from_name(head) {
                let args = parts.rest_exprs()?;
                if args.len() != func.arity() {
                    let plural = if func.arity() == 1 { "" } else { "s" };
                    return Err(error_at(
                        node.pos,
                        format!(
                            "`{head}` takes {} argument{plural}, found {}",
                            func.arity(),
                            args.len()
                        ),
                    ));
                }
                Expr::Lib { func, args }
            } else if let Some(op) = ReduceOp::from_name(head) {
                // `:axis K` and `:acc T`, in either order.
                let (mut axis, mut acc) = (None, None);
                for _ in 0..2 {
                    if axis.is_none() {
                        if let Some(k) = parts.take_trailing(":axis") {
                            axis = Some(small_int(k, "an axis")?);
                            continue;
                        }
                    }
                    if acc.is_none() {
                        if let Some(t) = parts.take_trailing(":acc") {
                            acc = Some(accumulator(t)?);
                        }
                    }
                }
                Expr::Reduce {
                    op,
                    arg: boxed(parts.expr("the operand")?),
                    axis,
                    acc,
                }
            } else if let Some(op) = ScanOp::from_name(head) {
                let acc = parts.take_trailing(":acc").map(accumulator).transpose()?;
                Expr::Scan {
                    op,
                    arg: boxed(parts.expr("the operand")?),
                    acc,
                }
            } else {
                let hint = if stmt_heads().contains(&head) {
                    " (a statement is not an expression)".to_string()
                } else if has_name_syntax(head) {
                    format!(" (a call of a module function is written `(call {head} ...)`)")
                } else {
                    String::new()
                };
                return Err(error_at(
                    node.pos,
                    format!("unknown expression `({head} ...)`{hint}"),
                ));
            }
        }
    };
    parts.finish()?;
    Ok(e)
}

fn stmt_heads() -> &'static [&'static str] {
    &[
        "block", "gpu", "set", "mset", "if", "for", "parfor", "while", "break", "continue",
        "return", "expr", "alloc", "free", "refincr", "refdecr",
    ]
}

/// A range endpoint or step: `_` for absent.
fn range_bound(node: &Sexp) -> Parsed<Option<Box<Expr>>> {
    if node.atom() == Some("_") {
        Ok(None)
    } else {
        expr(node).map(|e| Some(boxed(e)))
    }
}

/// `INDEX ... FLAGS` of an index read or write; flags are `:neg :flat :nocheck :view`.
fn indices_and_flags(parts: &mut Parts) -> Parsed<(Vec<Expr>, IndexFlags)> {
    let indices = parts.exprs_until_keyword()?;
    let mut flags = IndexFlags::default();
    let mut seen = Vec::new();
    for item in std::mem::take(&mut parts.items) {
        let Some(k) = item.keyword() else {
            return Err(error_at(
                item.pos,
                format!("unexpected {} after the index flags", item.describe()),
            ));
        };
        if seen.contains(&k) {
            return Err(error_at(item.pos, format!("index flag `{k}` given twice")));
        }
        seen.push(k);
        match k {
            ":neg" => flags.negative = true,
            ":flat" => flags.flatten = true,
            ":nocheck" => flags.check = false,
            ":view" => flags.view = true,
            _ => {
                return Err(error_at(
                    item.pos,
                    format!("unknown index flag `{k}` (expected :neg, :flat, :nocheck or :view)"),
                ))
            }
        }
    }
    Ok((indices, flags))
}
