//! The R parser: tokens to HIR, with R's operator precedence (R Language Definition,
//! "Infix and prefix operators"). Reads whole files of top-level assignments and single
//! deparsed functions alike; constructs it recognises but no front end compiles (`<<-`,
//! `$`, `@`, formulas, pipes) become `ExprKind::Unsupported` so that the diagnostic can
//! name them with their line.

use super::lexer::{lex, Tok, Token};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, FunctionDef, Line, MissingKind, Param, UnOp};
use crate::runtime::error::{VrError, VrResult};

/// Parse R source into its top-level expressions.
pub fn parse_program(src: &str) -> VrResult<Vec<Expr>> {
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0, nl_skip: 0, braces: 0, depth: 0 };
    let mut out = Vec::new();
    loop {
        p.skip_newlines();
        if p.peek() == &Tok::Eof {
            break;
        }
        out.push(p.expr(0)?);
        match p.peek_raw() {
            Tok::Newline | Tok::Eof => {}
            other => return Err(p.error(&format!("unexpected {} after an expression", describe(other)))),
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// > 0 inside parentheses and brackets, where newlines do not end expressions.
    nl_skip: u32,
    /// Inside braces, `else` may follow a newline.
    braces: u32,
    /// Nesting depth, bounded so that no input exhausts the stack.
    depth: u32,
}

const MAX_DEPTH: u32 = 200;

/// Left binding power and right operand's minimum power of an infix operator.
fn infix(tok: &Tok) -> Option<(u8, u8)> {
    let op = match tok {
        Tok::Op(o) => *o,
        Tok::Special(_) => return Some((12, 13)),
        _ => return None,
    };
    Some(match op {
        "?" => (1, 2),
        "=" => (2, 2),
        "<-" | "<<-" => (3, 3),
        "->" | "->>" => (4, 5),
        "~" => (5, 6),
        "||" | "|" => (6, 7),
        "&&" | "&" => (7, 8),
        "==" | "!=" | "<" | ">" | "<=" | ">=" => (9, 10),
        "+" | "-" => (10, 11),
        "*" | "/" => (11, 12),
        "%%" | "%/%" | "%*%" | "%in%" | "|>" => (12, 13),
        ":" => (13, 14),
        "^" => (15, 15),
        _ => return None,
    })
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("number {v}"),
        Tok::Int(v) => format!("integer {v}L"),
        Tok::Imag(v) => format!("complex {v}i"),
        Tok::Str(s) => format!("string {s:?}"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Op(o) => format!("`{o}`"),
        Tok::Special(o) => format!("`{o}`"),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of input".into(),
    }
}

impl Parser {
    fn peek_raw(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek(&mut self) -> &Tok {
        if self.nl_skip > 0 {
            self.skip_newlines();
        }
        &self.toks[self.pos].tok
    }
    fn line(&self) -> Line {
        self.toks[self.pos].line
    }
    fn skip_newlines(&mut self) {
        while self.toks[self.pos].tok == Tok::Newline {
            self.pos += 1;
        }
    }
    fn next(&mut self) -> Tok {
        self.peek();
        let t = self.toks[self.pos].tok.clone();
        if t != Tok::Eof {
            self.pos += 1;
        }
        t
    }
    fn error(&self, msg: &str) -> VrError {
        VrError::parse(format!("line {}: {msg}", self.line()))
    }
    fn expect(&mut self, op: &str) -> VrResult<()> {
        match self.peek() {
            Tok::Op(o) if *o == op => {
                self.next();
                Ok(())
            }
            other => {
                let d = describe(other);
                Err(self.error(&format!("expected `{op}`, found {d}")))
            }
        }
    }
    fn is_op(&mut self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn expr(&mut self, min_bp: u8) -> VrResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        let r = self.expr_inner(min_bp);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, min_bp: u8) -> VrResult<Expr> {
        let mut lhs = self.prefix()?;
        let mut compared = false;
        loop {
            let tok = self.peek().clone();
            let Some((lbp, rbp)) = infix(&tok) else { break };
            if lbp < min_bp {
                break;
            }
            // R's comparisons do not associate: `a < b < c` is a syntax error.
            let comparison = lbp == 9;
            if comparison && compared {
                return Err(self.error(&format!("unexpected {}: comparisons do not chain in R", describe(&tok))));
            }
            compared = comparison;
            let line = self.line();
            self.next();
            self.skip_newlines();
            let rhs = self.expr(rbp)?;
            lhs = self.binary(tok, lhs, rhs, line)?;
        }
        Ok(lhs)
    }

    fn binary(&mut self, tok: Tok, lhs: Expr, rhs: Expr, line: Line) -> VrResult<Expr> {
        let b = |op: BinOp, l: Expr, r: Expr| Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), line);
        let op = match &tok {
            Tok::Special(s) => return Ok(Expr::new(ExprKind::Unsupported(format!("operator `{s}`")), line)),
            Tok::Op(o) => *o,
            _ => unreachable!("infix() accepts only operators"),
        };
        Ok(match op {
            "<-" | "=" => Expr::new(ExprKind::Assign { target: Box::new(lhs), value: Box::new(rhs) }, line),
            "->" => Expr::new(ExprKind::Assign { target: Box::new(rhs), value: Box::new(lhs) }, line),
            "<<-" | "->>" => Expr::new(ExprKind::Unsupported(format!("superassignment `{op}`")), line),
            "?" => Expr::new(ExprKind::Unsupported("help operator `?`".into()), line),
            "~" => Expr::new(ExprKind::Unsupported("formula `~`".into()), line),
            "|>" => Expr::new(ExprKind::Unsupported("pipe `|>`".into()), line),
            "%in%" => Expr::new(ExprKind::Unsupported("operator `%in%`".into()), line),
            "+" => b(BinOp::Add, lhs, rhs),
            "-" => b(BinOp::Sub, lhs, rhs),
            "*" => b(BinOp::Mul, lhs, rhs),
            "/" => b(BinOp::Div, lhs, rhs),
            "^" => b(BinOp::Pow, lhs, rhs),
            "%%" => b(BinOp::Mod, lhs, rhs),
            "%/%" => b(BinOp::IDiv, lhs, rhs),
            "%*%" => b(BinOp::MatMul, lhs, rhs),
            ":" => b(BinOp::Colon, lhs, rhs),
            "<" => b(BinOp::Lt, lhs, rhs),
            "<=" => b(BinOp::Le, lhs, rhs),
            ">" => b(BinOp::Gt, lhs, rhs),
            ">=" => b(BinOp::Ge, lhs, rhs),
            "==" => b(BinOp::Eq, lhs, rhs),
            "!=" => b(BinOp::Ne, lhs, rhs),
            "&" => b(BinOp::And, lhs, rhs),
            "|" => b(BinOp::Or, lhs, rhs),
            "&&" => b(BinOp::AndAnd, lhs, rhs),
            "||" => b(BinOp::OrOr, lhs, rhs),
            other => return Err(self.error(&format!("unexpected operator `{other}`"))),
        })
    }

    fn prefix(&mut self) -> VrResult<Expr> {
        let line = self.line();
        let tok = self.next();
        let e = |k: ExprKind| Expr::new(k, line);
        let base = match tok {
            Tok::Num(v) => e(ExprKind::Double(v)),
            Tok::Int(v) => e(ExprKind::Int(v)),
            Tok::Imag(v) => e(ExprKind::Imaginary(v)),
            Tok::Str(s) => e(ExprKind::Str(s)),
            Tok::Op("-") | Tok::Op("+") | Tok::Op("!") => {
                let (op, bp) = match tok {
                    Tok::Op("-") => (UnOp::Neg, 14),
                    Tok::Op("+") => (UnOp::Plus, 14),
                    _ => (UnOp::Not, 8),
                };
                self.skip_newlines();
                let arg = self.expr(bp)?;
                return Ok(e(ExprKind::Unary(op, Box::new(arg))));
            }
            Tok::Op("~") => {
                let _ = self.expr(6)?;
                return Ok(e(ExprKind::Unsupported("formula `~`".into())));
            }
            Tok::Op("(") => {
                self.nl_skip += 1;
                let inner = self.expr(0);
                let close = self.expect(")");
                self.nl_skip -= 1;
                close?;
                inner?
            }
            Tok::Op("{") => self.block(line)?,
            Tok::Ident(name) => match name.as_str() {
                "TRUE" => e(ExprKind::Bool(true)),
                "FALSE" => e(ExprKind::Bool(false)),
                "NULL" => e(ExprKind::Null),
                "NA" => e(ExprKind::Missing(MissingKind::Logical)),
                "NA_integer_" => e(ExprKind::Missing(MissingKind::Integer)),
                "NA_real_" => e(ExprKind::Missing(MissingKind::Real)),
                "NA_complex_" => e(ExprKind::Missing(MissingKind::Complex)),
                "NA_character_" => e(ExprKind::Unsupported("string `NA_character_`".into())),
                "Inf" => e(ExprKind::Double(f64::INFINITY)),
                "NaN" => e(ExprKind::Double(f64::NAN)),
                "function" => return self.function(line),
                "if" => return self.if_expr(line),
                "for" => return self.for_expr(line),
                "while" => {
                    let cond = self.paren_expr()?;
                    self.skip_newlines();
                    let body = self.expr(2)?;
                    return Ok(e(ExprKind::While { cond: Box::new(cond), body: Box::new(body) }));
                }
                "repeat" => {
                    self.skip_newlines();
                    let body = self.expr(2)?;
                    return Ok(e(ExprKind::Repeat(Box::new(body))));
                }
                "break" => e(ExprKind::Break),
                "next" => e(ExprKind::Next),
                _ => e(ExprKind::Var(name)),
            },
            Tok::Op("\\") => return self.function(line),
            other => return Err(VrError::parse(format!("line {line}: unexpected {}", describe(&other)))),
        };
        self.postfix(base)
    }

    fn postfix(&mut self, mut base: Expr) -> VrResult<Expr> {
        loop {
            // A postfix operator must be on the same line unless inside parentheses.
            let tok = if self.nl_skip > 0 { self.peek().clone() } else { self.peek_raw().clone() };
            let line = self.line();
            match tok {
                Tok::Op("(") => {
                    self.next();
                    let args = self.args(")")?;
                    base = match base.kind {
                        ExprKind::Var(func) => Expr::new(ExprKind::Call { func, args }, base.line),
                        _ => Expr::new(ExprKind::CallExpr { callee: Box::new(base), args }, line),
                    };
                }
                Tok::Op("[") | Tok::Op("[[") => {
                    self.next();
                    let double = tok == Tok::Op("[[");
                    let args = self.args("]")?;
                    if double {
                        self.expect("]")?;
                    }
                    let mut indices = Vec::new();
                    for a in args {
                        if let Some(name) = &a.name {
                            indices.push(Some(Expr::new(
                                ExprKind::Unsupported(format!("named index argument `{name} =`")),
                                line,
                            )));
                            continue;
                        }
                        indices.push(if matches!(a.value.kind, ExprKind::Unsupported(ref s) if s == EMPTY_ARG) {
                            None
                        } else {
                            Some(a.value)
                        });
                    }
                    base = Expr::new(ExprKind::Index { target: Box::new(base), indices, double }, line);
                }
                Tok::Op("$") => {
                    self.next();
                    base = match self.next() {
                        // `x$name`, `x$"name"`, x$`name`.
                        Tok::Ident(name) | Tok::Str(name) => Expr::new(ExprKind::Field { target: Box::new(base), name }, line),
                        _ => Expr::new(ExprKind::Unsupported("`$` with a computed name".into()), line),
                    };
                }
                Tok::Op("@") => {
                    self.next();
                    let _ = self.next();
                    base = Expr::new(ExprKind::Unsupported("slot access `@`".into()), line);
                }
                Tok::Op("::") => {
                    self.next();
                    let _ = self.next();
                    base = Expr::new(ExprKind::Unsupported("namespace access `::`".into()), line);
                }
                _ => return Ok(base),
            }
        }
    }
}

/// Marks an empty argument position (`x[i, ]`); only indexing accepts one.
const EMPTY_ARG: &str = "empty argument";

impl Parser {
    /// Arguments up to `close`: positional, `name = value`, or empty (`x[, j]`).
    fn args(&mut self, close: &str) -> VrResult<Vec<Arg>> {
        self.nl_skip += 1;
        let r = self.args_inner(close);
        self.nl_skip -= 1;
        r
    }

    fn args_inner(&mut self, close: &str) -> VrResult<Vec<Arg>> {
        let mut out = Vec::new();
        if self.is_op(close) {
            self.next();
            return Ok(out);
        }
        loop {
            let line = self.line();
            if self.is_op(",") || self.is_op(close) {
                out.push(Arg { name: None, value: Expr::new(ExprKind::Unsupported(EMPTY_ARG.into()), line) });
            } else {
                let named = match (self.peek().clone(), self.toks.get(self.pos + 1).map(|t| &t.tok)) {
                    (Tok::Ident(n), Some(Tok::Op("="))) | (Tok::Str(n), Some(Tok::Op("="))) => Some(n),
                    _ => None,
                };
                if let Some(n) = named {
                    self.next();
                    self.next();
                    out.push(Arg { name: Some(n), value: self.expr(2)? });
                } else {
                    out.push(Arg { name: None, value: self.expr(2)? });
                }
            }
            if self.is_op(",") {
                self.next();
                continue;
            }
            self.expect(close)?;
            return Ok(out);
        }
    }

    fn paren_expr(&mut self) -> VrResult<Expr> {
        self.expect("(")?;
        self.nl_skip += 1;
        let e = self.expr(0);
        let close = self.expect(")");
        self.nl_skip -= 1;
        close?;
        e
    }

    fn block(&mut self, line: Line) -> VrResult<Expr> {
        let saved = self.nl_skip;
        self.nl_skip = 0;
        self.braces += 1;
        let mut stmts = Vec::new();
        let result = loop {
            self.skip_newlines();
            if self.is_op("}") {
                self.next();
                break Ok(());
            }
            if self.peek() == &Tok::Eof {
                break Err(VrError::parse(format!("line {line}: `{{` is never closed")));
            }
            match self.expr(0) {
                Ok(e) => stmts.push(e),
                Err(e) => break Err(e),
            }
            match self.peek_raw() {
                Tok::Newline | Tok::Op("}") => {}
                other => {
                    let d = describe(other);
                    break Err(self.error(&format!("unexpected {d} after a statement")));
                }
            }
        };
        self.braces -= 1;
        self.nl_skip = saved;
        result?;
        Ok(Expr::new(ExprKind::Block(stmts), line))
    }

    fn function(&mut self, line: Line) -> VrResult<Expr> {
        self.expect("(")?;
        self.nl_skip += 1;
        let mut params = Vec::new();
        let r: VrResult<()> = (|| {
            if self.is_op(")") {
                self.next();
                return Ok(());
            }
            loop {
                let name = match self.next() {
                    Tok::Ident(n) => n,
                    other => return Err(self.error(&format!("expected a parameter name, found {}", describe(&other)))),
                };
                // R's own message for `function(a, a)`; two variables of one name would
                // reach the verifier otherwise (found by fuzzing, tests/fuzz/regressions).
                if params.iter().any(|p: &Param| p.name == name) {
                    return Err(self.error(&format!("repeated formal argument '{name}'")));
                }
                let default = if self.is_op("=") {
                    self.next();
                    Some(self.expr(2)?)
                } else {
                    None
                };
                params.push(Param { name, default });
                if self.is_op(",") {
                    self.next();
                    continue;
                }
                self.expect(")")?;
                return Ok(());
            }
        })();
        self.nl_skip -= 1;
        r?;
        self.skip_newlines();
        let body = self.expr(2)?;
        Ok(Expr::new(ExprKind::Function(FunctionDef { params, body: Box::new(body) }), line))
    }

    fn if_expr(&mut self, line: Line) -> VrResult<Expr> {
        let cond = self.paren_expr()?;
        self.skip_newlines();
        let then = self.expr(2)?;
        // `else` may start a new line inside braces or parentheses (not at top level).
        let save = self.pos;
        if self.braces > 0 || self.nl_skip > 0 {
            self.skip_newlines();
        }
        let els = if matches!(self.peek_raw(), Tok::Ident(k) if k == "else") {
            self.pos += 1;
            self.skip_newlines();
            Some(Box::new(self.expr(2)?))
        } else {
            self.pos = save;
            None
        };
        Ok(Expr::new(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els }, line))
    }

    fn for_expr(&mut self, line: Line) -> VrResult<Expr> {
        self.expect("(")?;
        self.nl_skip += 1;
        let head: VrResult<(String, Expr)> = (|| {
            let var = match self.next() {
                Tok::Ident(n) => n,
                other => return Err(self.error(&format!("expected a loop variable, found {}", describe(&other)))),
            };
            match self.next() {
                Tok::Ident(k) if k == "in" => {}
                other => return Err(self.error(&format!("expected `in`, found {}", describe(&other)))),
            }
            let seq = self.expr(0)?;
            self.expect(")")?;
            Ok((var, seq))
        })();
        self.nl_skip -= 1;
        let (var, seq) = head?;
        self.skip_newlines();
        let body = self.expr(2)?;
        Ok(Expr::new(ExprKind::For { var, seq: Box::new(seq), body: Box::new(body) }, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Expr {
        let mut v = parse_program(src).unwrap();
        assert_eq!(v.len(), 1, "{v:?}");
        v.remove(0)
    }

    fn bin(e: &Expr) -> (BinOp, &Expr, &Expr) {
        match &e.kind {
            ExprKind::Binary(op, a, b) => (*op, a, b),
            other => panic!("not binary: {other:?}"),
        }
    }

    #[test]
    fn precedence_follows_r() {
        // -2^2 is -(2^2); -1:3 is (-1):3; a + b * c; 2^3^2 is 2^(3^2).
        let e = one("-2^2");
        assert!(matches!(&e.kind, ExprKind::Unary(UnOp::Neg, a) if matches!(a.kind, ExprKind::Binary(BinOp::Pow, ..))));
        let e = one("-1:3");
        let (op, l, _) = bin(&e);
        assert_eq!(op, BinOp::Colon);
        assert!(matches!(l.kind, ExprKind::Unary(UnOp::Neg, _)));
        let e = one("a + b * c");
        let (op, _, r) = bin(&e);
        assert_eq!(op, BinOp::Add);
        assert_eq!(bin(r).0, BinOp::Mul);
        let e = one("2^3^2");
        let (op, l, r) = bin(&e);
        assert_eq!(op, BinOp::Pow);
        assert_eq!(l.kind, ExprKind::Double(2.0));
        assert_eq!(bin(r).0, BinOp::Pow);
        let e = one("1:n-1");
        assert_eq!(bin(&e).0, BinOp::Sub);
        let e = one("!a == b");
        assert!(matches!(&e.kind, ExprKind::Unary(UnOp::Not, a) if matches!(a.kind, ExprKind::Binary(BinOp::Eq, ..))));
        let e = one("a %% b * c");
        assert_eq!(bin(&e).0, BinOp::Mul);
    }

    #[test]
    fn literals() {
        assert_eq!(one("5L").kind, ExprKind::Int(5));
        assert_eq!(one("2i").kind, ExprKind::Imaginary(2.0));
        assert_eq!(one("1e3").kind, ExprKind::Double(1000.0));
        assert_eq!(one("0x10L").kind, ExprKind::Int(16));
        assert_eq!(one(".5").kind, ExprKind::Double(0.5));
        assert_eq!(one("TRUE").kind, ExprKind::Bool(true));
        assert_eq!(one("NA_integer_").kind, ExprKind::Missing(MissingKind::Integer));
    }

    #[test]
    fn deparsed_function_with_defaults_and_else_on_next_line() {
        let src = "f <- function (x, n = 10L) \n{\n    s <- 0 # sum\n    if (n > 0) \n        s <- 1\n    else s <- 2\n    s\n}\n";
        let e = one(src);
        let ExprKind::Assign { value, .. } = &e.kind else { panic!() };
        let ExprKind::Function(f) = &value.kind else { panic!() };
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.params[1].default.as_ref().unwrap().kind, ExprKind::Int(10));
        let ExprKind::Block(stmts) = &f.body.kind else { panic!() };
        assert_eq!(stmts.len(), 3);
        assert!(matches!(&stmts[1].kind, ExprKind::If { els: Some(_), .. }));
        assert_eq!(stmts[1].line, 4);
        assert_eq!(stmts[2].line, 7);
    }

    #[test]
    fn indexing_forms() {
        let e = one("x[i, ]");
        let ExprKind::Index { indices, double, .. } = &e.kind else { panic!() };
        assert_eq!(indices.len(), 2);
        assert!(indices[1].is_none() && !double);
        let e = one("x[[i]]");
        assert!(matches!(e.kind, ExprKind::Index { double: true, .. }));
        let e = one("x[, j] <- 0");
        assert!(matches!(e.kind, ExprKind::Assign { .. }));
        let e = one("3 -> y");
        let ExprKind::Assign { target, .. } = &e.kind else { panic!() };
        assert_eq!(target.kind, ExprKind::Var("y".into()));
    }

    #[test]
    fn calls_with_named_arguments_span_lines() {
        let e = one("matrix(0,\n  nrow = 2,\n  ncol = 3)");
        let ExprKind::Call { func, args } = &e.kind else { panic!() };
        assert_eq!(func, "matrix");
        assert_eq!(args[1].name.as_deref(), Some("nrow"));
    }

    #[test]
    fn backslash_is_function() {
        let e = one("sapply(x, \\(v) v + 1)");
        let ExprKind::Call { args, .. } = &e.kind else { panic!() };
        assert!(matches!(&args[1].value.kind, ExprKind::Function(f) if f.params.len() == 1));
    }

    #[test]
    fn unsupported_constructs_are_named() {
        assert!(matches!(one("x <<- 1").kind, ExprKind::Unsupported(ref s) if s.contains("<<-")));
        let e = one("l$a");
        assert!(matches!(e.kind, ExprKind::Field { ref name, .. } if name == "a"));
        let e = one("l$`b c`$\"d\"");
        assert!(matches!(e.kind, ExprKind::Field { ref name, ref target } if name == "d" && matches!(target.kind, ExprKind::Field { ref name, .. } if name == "b c")));
    }

    #[test]
    fn errors_name_the_line() {
        assert!(parse_program("a < b == c").unwrap_err().message.contains("do not chain"));
        let e = parse_program("f <- function(x) {\n  x +\n}\n").unwrap_err();
        assert!(e.message.contains("line 3"), "{e}");
        assert!(parse_program("f(").is_err());
    }
}
