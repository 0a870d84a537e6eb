//! The Julia parser: tokens to the shared HIR, with Julia's precedence (the manual's
//! "Operator Precedence and Associativity" table) and the syntax of the numeric subset
//! docs/frontend-julia.md lists. Julia-only forms become calls of names no Julia source
//! can spell (`#dot`, `#range`, `#vect`, ...), which the rule table (`julia::builtins`)
//! lowers; a few are rewritten here, where the syntax decides them:
//!
//! - `end` inside an index is `lastindex(A)` or `lastindex(A, k)` (Julia's own lowering);
//! - `x += v` is `x = x + v`; `x .= v` (and `.+=`) an in-place broadcast `#dotassign`;
//! - `@.` puts a dot on every operator and call of its expression;
//! - a comprehension `[f(x) for x in r]` (two ranges: a matrix) is a block that fills a
//!   fresh array in a loop, its variables renamed to names of its own (`julia::desugar`);
//! - chained comparisons `a < b <= c` are `a < b && b <= c`.
//!
//! A file is read as Julia reads a script: function definitions (long and short form,
//! with macros such as `@inline` in front) and constants are kept; every other
//! top-level statement (`using`, `include`, `@test`, `@time`, `println`, `struct` ...)
//! is stepped over, and one the parser cannot read is skipped to its end. A function
//! that does not parse is remembered with its error, reported when it is compiled.

use super::desugar;
use super::lexer::{lex, Tok, Token};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, FunctionDef, Line, Param, UnOp};
use crate::runtime::error::{VrError, VrResult};

/// A function definition of the source.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub def: FunctionDef,
    /// Parameter type annotations (`x::Vector{Float64}`), as written, by position.
    pub annotations: Vec<Option<String>>,
    /// The declared result type (`function f(x)::Float64`).
    pub returns: Option<String>,
    pub line: Line,
}

/// What a Julia file defines at top level.
#[derive(Debug, Default)]
pub struct Source {
    pub functions: Vec<Function>,
    /// `const N = 10` and names assigned a constant once.
    pub constants: Vec<(String, Expr)>,
    /// Names assigned at top level more than once or with a non-constant value: not
    /// constants (a function reading them does not compile).
    pub globals: Vec<String>,
    /// Functions whose definition did not parse, with the error.
    pub broken: Vec<(String, VrError)>,
}

/// Parse a Julia file (or one function's text).
pub fn parse_source(src: &str) -> VrResult<Source> {
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0, nl_skip: 0, depth: 0, index_level: 0, no_range_colon: false, space_sep: false, counter: 0 };
    let mut out = Source::default();
    let mut modules = 0u32;
    loop {
        p.skip_separators();
        if p.at_eof() {
            break;
        }
        let start = p.pos;
        // `module M ... end` around the file: its contents are top-level statements.
        if p.is_kw("module") || p.is_kw("baremodule") {
            p.pos += 2;
            modules += 1;
            continue;
        }
        if modules > 0 && p.is_kw("end") {
            p.pos += 1;
            modules -= 1;
            continue;
        }
        match p.top_level(&mut out) {
            Ok(()) => {}
            Err(e) => {
                p.pos = start;
                let name = p.defined_name();
                p.skip_broken();
                if let Some(name) = name {
                    out.broken.push((name, e));
                }
            }
        }
    }
    Ok(out)
}

/// Parse one statement or expression (tests, and the rule table's messages).
pub fn parse_expr(src: &str) -> VrResult<Expr> {
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0, nl_skip: 0, depth: 0, index_level: 0, no_range_colon: false, space_sep: false, counter: 0 };
    p.skip_separators();
    let e = p.statement()?;
    p.skip_separators();
    if !p.at_eof() {
        return Err(p.error("unexpected text after the expression"));
    }
    Ok(e)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// > 0 inside parentheses and braces, where newlines do not end expressions.
    nl_skip: u32,
    /// Nesting depth, bounded so that no input exhausts the stack.
    depth: u32,
    /// How many index brackets enclose the expression being read (`end` is an index
    /// there).
    index_level: u32,
    /// In the middle of a ternary `c ? a : b`: `:` ends `a` instead of making a range.
    no_range_colon: bool,
    /// Space separates elements (a macro's arguments, `[a b]`): `a -b` is two.
    space_sep: bool,
    /// Fresh names for comprehensions and `let`.
    counter: u32,
}

const MAX_DEPTH: u32 = 200;

/// Names of modules whose qualified functions are Julia's own (`Base.sqrt`).
const MODULES: &[&str] = &["Base", "Math", "Core", "LinearAlgebra", "Statistics", "Threads", "Base.Threads", "Base.Math"];

/// Julia's keywords that end or structure blocks and cannot be variables.
const BLOCK_END: &[&str] = &["end", "else", "elseif", "catch", "finally"];

/// Type names that make `T[...]` a typed array literal.
pub const TYPE_NAMES: &[&str] = &["Float64", "Int", "Int64", "Bool", "ComplexF64", "Int32", "Float32", "UInt8", "Any", "Real", "Number"];

fn describe(t: &Tok) -> String {
    match t {
        Tok::Int { digits, .. } => format!("number {digits}"),
        Tok::Float(v) | Tok::Float32(v) => format!("number {v}"),
        Tok::Str(s) => format!("string {s:?}"),
        Tok::Char(c) => format!("character {c:?}"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Macro(s) => format!("`@{s}`"),
        Tok::Op(o) => format!("`{o}`"),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of input".into(),
    }
}

fn e(kind: ExprKind, line: Line) -> Expr {
    Expr::new(kind, line)
}

pub fn call(func: &str, args: Vec<Expr>, line: Line) -> Expr {
    e(ExprKind::Call { func: func.into(), args: args.into_iter().map(|value| Arg { name: None, value }).collect() }, line)
}

fn unsupported(what: &str, line: Line) -> Expr {
    e(ExprKind::Unsupported(what.into()), line)
}

/// The HIR operator of a plain binary operator, or the library name of one Julia
/// spells as an operator but the HIR has no node for.
enum Infix {
    Bin(BinOp),
    Call(&'static str),
}

fn binary_op(op: &str) -> Option<Infix> {
    use Infix::*;
    Some(match op {
        "+" => Bin(BinOp::Add),
        "-" => Bin(BinOp::Sub),
        "*" => Bin(BinOp::Mul),
        "/" => Bin(BinOp::Div),
        "^" => Bin(BinOp::Pow),
        "&" => Bin(BinOp::And),
        "|" => Bin(BinOp::Or),
        "<" => Bin(BinOp::Lt),
        "<=" | "≤" => Bin(BinOp::Le),
        ">" => Bin(BinOp::Gt),
        ">=" | "≥" => Bin(BinOp::Ge),
        "==" => Bin(BinOp::Eq),
        "!=" | "≠" => Bin(BinOp::Ne),
        "%" => Call("rem"),
        "÷" => Call("div"),
        "⊻" => Call("xor"),
        "<<" => Call("<<"),
        ">>" => Call(">>"),
        ">>>" => Call(">>>"),
        "\\" => Call("\\"),
        "===" => Call("==="),
        "!==" => Call("!=="),
        _ => return None,
    })
}

/// Binding power of an infix operator (higher binds tighter) and whether it is right
/// associative. Dotted operators share their plain form's level.
fn precedence(op: &str) -> Option<(u8, bool)> {
    let plain = op.strip_prefix('.').filter(|p| !p.is_empty() && *p != "=").unwrap_or(op);
    Some(match plain {
        "||" => (3, true),
        "&&" => (4, true),
        "<" | ">" | "<=" | ">=" | "==" | "!=" | "===" | "!==" | "≤" | "≥" | "≠" | "<:" | ">:" | "∈" | "∉" => (6, false),
        "|>" | "<|" => (7, false),
        ":" => (8, false),
        "+" | "-" | "|" | "⊻" => (9, false),
        "*" | "/" | "÷" | "%" | "&" | "\\" => (10, false),
        "<<" | ">>" | ">>>" => (12, false),
        "^" => (14, true),
        _ => return None,
    })
}

const UNARY_POWER: u8 = 13;

impl Parser {
    // ----- tokens -----

    fn tok(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek(&mut self) -> &Tok {
        if self.nl_skip > 0 {
            while self.toks[self.pos].tok == Tok::Newline {
                self.pos += 1;
            }
        }
        &self.toks[self.pos].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn space_before(&self) -> bool {
        self.toks[self.pos].space_before
    }
    fn line(&self) -> Line {
        self.toks[self.pos].line
    }
    fn at_eof(&self) -> bool {
        self.toks[self.pos].tok == Tok::Eof
    }
    fn advance(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if t != Tok::Eof {
            self.pos += 1;
        }
        t
    }
    fn next(&mut self) -> Tok {
        self.peek();
        self.advance()
    }
    fn error(&self, msg: &str) -> VrError {
        VrError::parse(format!("line {}: {msg}", self.line()))
    }
    fn is_op(&mut self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if o == op)
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.tok(), Tok::Ident(s) if s == kw)
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.advance();
            true
        } else {
            false
        }
    }
    fn expect_op(&mut self, op: &str) -> VrResult<()> {
        if self.eat_op(op) {
            return Ok(());
        }
        let d = describe(self.peek());
        Err(self.error(&format!("expected `{op}`, found {d}")))
    }
    fn expect_kw(&mut self, kw: &str) -> VrResult<()> {
        self.skip_separators();
        if self.is_kw(kw) {
            self.advance();
            return Ok(());
        }
        Err(self.error(&format!("expected `{kw}`, found {}", describe(self.tok()))))
    }
    fn skip_newlines(&mut self) {
        while self.toks[self.pos].tok == Tok::Newline {
            self.pos += 1;
        }
    }
    fn skip_separators(&mut self) {
        while matches!(&self.toks[self.pos].tok, Tok::Newline) || matches!(&self.toks[self.pos].tok, Tok::Op(o) if o == ";") {
            self.pos += 1;
        }
    }
    fn fresh(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("#{what}{}", self.counter)
    }
    /// Run `f` with newlines ignored (inside brackets).
    fn bracketed<T>(&mut self, f: impl FnOnce(&mut Self) -> VrResult<T>) -> VrResult<T> {
        let (space, colon) = (self.space_sep, self.no_range_colon);
        self.space_sep = false;
        self.no_range_colon = false;
        self.nl_skip += 1;
        let r = f(self);
        self.nl_skip -= 1;
        self.space_sep = space;
        self.no_range_colon = colon;
        r
    }
    fn enter(&mut self) -> VrResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        Ok(())
    }

    // ----- top level -----

    /// The name a top-level statement defines, when it is a function definition (for
    /// the error of one that does not parse).
    fn defined_name(&self) -> Option<String> {
        let mut k = self.pos;
        while matches!(&self.toks[k].tok, Tok::Macro(_)) {
            k += 1;
        }
        match (&self.toks[k].tok, &self.toks.get(k + 1).map(|t| &t.tok)) {
            (Tok::Ident(f), Some(Tok::Ident(name))) if f == "function" => Some(name.clone()),
            (Tok::Ident(name), Some(Tok::Op(o))) if o == "(" && !self.toks[k + 1].space_before => Some(name.clone()),
            _ => None,
        }
    }

    /// Skip the statement at the cursor: to the end of its line, past every block and
    /// bracket it opens.
    fn skip_statement(&mut self) {
        let mut blocks = 0i32;
        let mut brackets = 0i32;
        let openers = ["function", "if", "for", "while", "begin", "let", "quote", "struct", "module", "baremodule", "macro", "try", "do"];
        loop {
            match &self.toks[self.pos].tok {
                Tok::Eof => return,
                Tok::Newline if blocks <= 0 && brackets <= 0 => return,
                Tok::Op(o) if o == ";" && blocks <= 0 && brackets <= 0 => return,
                Tok::Op(o) if o == "(" || o == "[" || o == "{" => brackets += 1,
                Tok::Op(o) if o == ")" || o == "]" || o == "}" => brackets -= 1,
                Tok::Ident(k) if brackets <= 0 && openers.contains(&k.as_str()) => blocks += 1,
                Tok::Ident(k) if brackets <= 0 && k == "end" => blocks -= 1,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skip a top-level statement that does not parse: to the next line that starts at
    /// its column or left of it (past an `end` there, which closes it). Brackets and
    /// blocks cannot be trusted in text that does not parse; indentation can.
    fn skip_broken(&mut self) {
        let col = self.toks[self.pos].col;
        self.advance();
        loop {
            match self.tok() {
                Tok::Eof => return,
                Tok::Newline => {
                    self.skip_newlines();
                    if self.toks[self.pos].col <= col {
                        if self.is_kw("end") {
                            self.advance();
                        }
                        return;
                    }
                }
                _ => {
                    self.advance();
                }
            }
        }
    }

    fn top_level(&mut self, out: &mut Source) -> VrResult<()> {
        // Macros in front of a definition (`@inline`, `@vr`, `Base.@propagate_inbounds`).
        let mut k = self.pos;
        while matches!(&self.toks[k].tok, Tok::Macro(_)) {
            k += 1;
        }
        if matches!(&self.toks[k].tok, Tok::Ident(f) if f == "function") {
            self.pos = k;
            let f = self.function_def()?;
            out.functions.push(f);
            return Ok(());
        }
        if let Some(f) = self.short_function()? {
            out.functions.push(f);
            return Ok(());
        }
        let is_const = self.is_kw("const");
        if is_const {
            self.advance();
        }
        if let (Tok::Ident(name), Tok::Op(eq)) = (self.tok().clone(), self.peek_at(1).clone()) {
            if eq == "=" && !BLOCK_END.contains(&name.as_str()) {
                self.pos += 2;
                let line = self.line();
                let value = self.expr()?;
                self.end_of_statement()?;
                let constant = desugar::is_constant(&value);
                let seen = out.constants.iter().any(|(n, _)| *n == name) || out.globals.contains(&name);
                if constant && !seen {
                    out.constants.push((name, value));
                } else {
                    out.constants.retain(|(n, _)| *n != name);
                    out.globals.push(name);
                }
                let _ = line;
                return Ok(());
            }
        }
        // Anything else is stepped over (it may still have to be read to find its end).
        self.skip_statement();
        Ok(())
    }

    fn end_of_statement(&mut self) -> VrResult<()> {
        match self.tok() {
            Tok::Newline | Tok::Eof => Ok(()),
            Tok::Op(o) if o == ";" => Ok(()),
            Tok::Ident(k) if BLOCK_END.contains(&k.as_str()) => Ok(()),
            other => {
                let d = describe(other);
                Err(self.error(&format!("unexpected {d} after a statement")))
            }
        }
    }

    /// `function NAME(params)[::T] [where ...] body end`.
    fn function_def(&mut self) -> VrResult<Function> {
        let line = self.line();
        self.advance(); // function
        let name = match self.next() {
            Tok::Ident(n) => n,
            other => return Err(self.error(&format!("expected a function name, found {}", describe(&other)))),
        };
        let name = self.qualified_rest(name);
        if !matches!(self.tok(), Tok::Op(o) if o == "(") {
            return Err(self.error(&format!("function `{name}` without a parameter list (a generic function declaration) does not compile")));
        }
        let (params, annotations) = self.params()?;
        let returns = self.return_annotation()?;
        self.skip_where()?;
        let body = self.block_until(&["end"])?;
        let end_line = self.line();
        self.expect_kw("end")?;
        let body = e(ExprKind::Block(body), line);
        let _ = end_line;
        Ok(Function { name, def: FunctionDef { params, body: Box::new(body) }, annotations, returns, line })
    }

    /// `NAME(params)[::T] [where ...] = expr`, when the tokens at the cursor are one.
    fn short_function(&mut self) -> VrResult<Option<Function>> {
        let start = self.pos;
        let Tok::Ident(name) = self.tok().clone() else { return Ok(None) };
        if !matches!(self.peek_at(1), Tok::Op(o) if o == "(") || self.toks[self.pos + 1].space_before {
            return Ok(None);
        }
        // Find the matching `)` and what follows it.
        let mut k = self.pos + 1;
        let mut depth = 0;
        loop {
            match &self.toks[k].tok {
                Tok::Op(o) if o == "(" || o == "[" || o == "{" => depth += 1,
                Tok::Op(o) if o == ")" || o == "]" || o == "}" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Eof => return Ok(None),
                _ => {}
            }
            k += 1;
        }
        k += 1;
        // Skip `::T` and `where ...` up to `=`.
        let mut braces = 0;
        loop {
            match &self.toks[k].tok {
                Tok::Op(o) if o == "=" && braces == 0 => break,
                Tok::Op(o) if o == "{" => braces += 1,
                Tok::Op(o) if o == "}" => braces -= 1,
                Tok::Op(o) if o == "::" || o == "<:" || o == "," || o == "." => {}
                Tok::Ident(_) => {}
                _ if braces > 0 && !matches!(self.toks[k].tok, Tok::Newline | Tok::Eof) => {}
                _ => return Ok(None),
            }
            k += 1;
        }
        let line = self.line();
        self.pos = start + 1;
        let (params, annotations) = self.params()?;
        let returns = self.return_annotation()?;
        self.skip_where()?;
        self.expect_op("=")?;
        self.skip_newlines();
        let value = self.statement()?;
        self.end_of_statement()?;
        let body = e(ExprKind::Block(vec![value]), line);
        Ok(Some(Function { name, def: FunctionDef { params, body: Box::new(body) }, annotations, returns, line }))
    }

    /// `Base.name` and the like: the name after a module prefix.
    fn qualified_rest(&mut self, mut name: String) -> String {
        while MODULES.contains(&name.as_str()) && matches!(self.tok(), Tok::Op(o) if o == ".") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.advance();
            if let Tok::Ident(n) = self.advance() {
                name = n;
            }
        }
        name
    }

    /// `(a, b::T, c = 1; k = 2)`: the parameters and their annotations.
    fn params(&mut self) -> VrResult<(Vec<Param>, Vec<Option<String>>)> {
        self.expect_op("(")?;
        self.bracketed(|p| {
            let mut params = Vec::new();
            let mut annotations = Vec::new();
            loop {
                if p.eat_op(")") {
                    break;
                }
                if p.eat_op(";") || p.eat_op(",") {
                    continue;
                }
                let name = match p.peek().clone() {
                    Tok::Ident(n) => {
                        p.advance();
                        n
                    }
                    Tok::Op(o) if o == "::" => {
                        // An unnamed parameter `::T`.
                        p.fresh("unnamed")
                    }
                    other => return Err(p.error(&format!("expected a parameter name, found {}", describe(&other)))),
                };
                // Julia's own refusal; two variables of one name would reach the
                // verifier otherwise (found by fuzzing, tests/fuzz/regressions).
                if params.iter().any(|q: &Param| q.name == name) {
                    return Err(p.error(&format!("function argument name not unique: \"{name}\"")));
                }
                if p.is_op("...") {
                    return Err(p.error(&format!("varargs parameter `{name}...` does not compile")));
                }
                let annotation = if p.eat_op("::") { Some(p.type_text()?) } else { None };
                let default = if p.eat_op("=") { Some(p.expr()?) } else { None };
                params.push(Param { name, default });
                annotations.push(annotation);
            }
            Ok((params, annotations))
        })
    }

    fn return_annotation(&mut self) -> VrResult<Option<String>> {
        if self.eat_op("::") {
            return Ok(Some(self.type_text()?));
        }
        Ok(None)
    }

    fn skip_where(&mut self) -> VrResult<()> {
        while self.is_kw("where") {
            self.advance();
            let _ = self.type_text()?;
            // `where T <: Real`
            while matches!(self.tok(), Tok::Op(o) if o == "<:" || o == ">:") {
                self.advance();
                let _ = self.type_text()?;
            }
        }
        Ok(())
    }

    /// A type as written (`Vector{Float64}`, `AbstractArray{<:Real,2}`, `{T<:Real}`),
    /// with the spaces removed.
    fn type_text(&mut self) -> VrResult<String> {
        let mut s = String::new();
        let mut depth = 0;
        loop {
            match self.tok().clone() {
                Tok::Op(o) if o == "{" => {
                    depth += 1;
                    s.push('{');
                }
                Tok::Op(o) if o == "}" && depth > 0 => {
                    depth -= 1;
                    s.push('}');
                }
                Tok::Newline if depth > 0 => {}
                Tok::Ident(n) if depth > 0 || s.is_empty() || s.ends_with('.') => s.push_str(&n),
                Tok::Int { digits, .. } if depth > 0 => s.push_str(&digits),
                Tok::Op(o) if depth > 0 && (o == "," || o == "<:" || o == ">:" || o == "." || o == "::") => s.push_str(&o),
                Tok::Op(o) if depth == 0 && o == "." && matches!(self.peek_at(1), Tok::Ident(_)) && !s.is_empty() => s.push('.'),
                Tok::Op(o) if depth == 0 && o == "<:" && s.is_empty() => s.push_str("<:"),
                _ if depth == 0 && !s.is_empty() => break,
                other => return Err(self.error(&format!("expected a type, found {}", describe(&other)))),
            }
            self.advance();
            if depth == 0 && !s.is_empty() && !matches!(self.tok(), Tok::Op(o) if o == "{" || o == ".") {
                break;
            }
        }
        Ok(s)
    }

    // ----- blocks and statements -----

    /// Statements up to (not including) one of the keywords `ends`.
    fn block_until(&mut self, ends: &[&str]) -> VrResult<Vec<Expr>> {
        self.enter()?;
        let saved = (self.nl_skip, self.space_sep, self.no_range_colon, self.index_level);
        self.nl_skip = 0;
        self.space_sep = false;
        self.no_range_colon = false;
        self.index_level = 0;
        let mut out = Vec::new();
        let r = loop {
            self.skip_separators();
            if self.at_eof() {
                break Err(self.error(&format!("missing `{}`", ends[0])));
            }
            if matches!(self.tok(), Tok::Ident(k) if ends.contains(&k.as_str())) {
                break Ok(());
            }
            match self.statement() {
                Ok(s) => out.push(s),
                Err(e) => break Err(e),
            }
            if let Err(e) = self.end_of_statement() {
                break Err(e);
            }
        };
        (self.nl_skip, self.space_sep, self.no_range_colon, self.index_level) = saved;
        self.depth -= 1;
        r.map(|_| out)
    }

    /// One statement: a keyword statement, or an expression with assignments.
    fn statement(&mut self) -> VrResult<Expr> {
        let line = self.line();
        if let Tok::Ident(k) = self.tok().clone() {
            match k.as_str() {
                "return" => {
                    self.advance();
                    let value = match self.tok() {
                        Tok::Newline | Tok::Eof => None,
                        Tok::Op(o) if o == ";" || o == ")" => None,
                        Tok::Ident(k) if BLOCK_END.contains(&k.as_str()) => None,
                        _ => Some(self.tuple_or_expr()?),
                    };
                    return Ok(desugar::return_of(value, line));
                }
                "break" => {
                    self.advance();
                    return Ok(e(ExprKind::Break, line));
                }
                "continue" => {
                    self.advance();
                    return Ok(e(ExprKind::Next, line));
                }
                "local" => {
                    self.advance();
                    return self.statement();
                }
                "global" => {
                    self.skip_statement();
                    return Ok(unsupported("`global` declaration", line));
                }
                "const" => {
                    self.advance();
                    return self.statement();
                }
                "function" => {
                    let f = self.function_def()?;
                    return Ok(unsupported(&format!("function `{}` defined inside a function", f.name), line));
                }
                "using" | "import" | "export" | "struct" | "mutable" | "abstract" | "primitive" | "module" | "macro" | "try" | "quote" => {
                    let what = format!("`{k}`");
                    self.skip_statement();
                    return Ok(unsupported(&format!("{what} inside a function"), line));
                }
                _ => {}
            }
        }
        let s = self.assignment()?;
        Ok(desugar::statement_short_circuit(s))
    }

    /// `a, b` (a tuple) or one expression.
    fn tuple_or_expr(&mut self) -> VrResult<Expr> {
        let line = self.line();
        let first = self.expr()?;
        if !self.is_op(",") || self.nl_skip > 0 && self.index_level > 0 {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if matches!(self.tok(), Tok::Newline | Tok::Eof) {
                break;
            }
            items.push(self.expr()?);
        }
        Ok(e(ExprKind::Tuple(items), line))
    }

    /// An expression, possibly assigned to: `x = v`, `a, b = v`, `x += v`, `x .= v`.
    fn assignment(&mut self) -> VrResult<Expr> {
        let line = self.line();
        let target = self.tuple_or_expr()?;
        let Tok::Op(op) = self.peek().clone() else { return Ok(target) };
        let update = match op.as_str() {
            "=" => None,
            ".=" => Some(("", true)),
            o if o.ends_with('=')
                && o.len() > 1
                && !matches!(o, "==" | "!=" | "<=" | ">=" | "===" | "!==" | ".==" | ".!=" | ".<=" | ".>=" | ".≤" | ".≥" | ".≠") =>
            {
                let base = &o[..o.len() - 1];
                let dotted = base.starts_with('.');
                Some((if dotted { &base[1..] } else { base }, dotted))
            }
            _ => return Ok(target),
        };
        self.advance();
        self.skip_newlines();
        let value = self.assignment()?;
        let update = update.map(|(b, d)| (b.to_string(), d));
        Ok(desugar::assignment(target, update, value, line))
    }

    // ----- expressions -----

    pub(super) fn expr(&mut self) -> VrResult<Expr> {
        self.enter()?;
        let r = self.ternary();
        self.depth -= 1;
        r
    }

    fn ternary(&mut self) -> VrResult<Expr> {
        let line = self.line();
        let cond = self.binary(0)?;
        if !self.is_op("?") {
            return Ok(cond);
        }
        self.advance();
        self.skip_newlines();
        let colon = self.no_range_colon;
        self.no_range_colon = true;
        let then = self.binary(0);
        self.no_range_colon = colon;
        let then = then?;
        self.skip_newlines();
        self.expect_op(":")?;
        self.skip_newlines();
        let els = self.ternary()?;
        Ok(e(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els: Some(Box::new(els)) }, line))
    }

    /// The operator at the cursor if it continues the expression as an infix one.
    fn infix_here(&mut self) -> Option<(String, u8, bool)> {
        let Tok::Op(op) = self.peek().clone() else {
            return match self.tok() {
                Tok::Ident(k) if k == "in" || k == "isa" => Some((k.clone(), 6, false)),
                _ => None,
            };
        };
        let (prec, right) = precedence(&op)?;
        if op == ":" && self.no_range_colon {
            return None;
        }
        // `[a -b]`, `@m a -b`: a unary operator with space before and none after starts
        // the next element.
        if self.space_sep && self.space_before() && !self.toks[self.pos + 1].space_before && matches!(op.as_str(), "+" | "-" | "!" | "~" | "&") {
            return None;
        }
        Some((op, prec, right))
    }

    fn binary(&mut self, min: u8) -> VrResult<Expr> {
        let mut left = self.unary()?;
        while let Some((op, prec, right_assoc)) = self.infix_here() {
            if prec < min {
                break;
            }
            let line = self.line();
            self.advance();
            self.skip_newlines();
            if op == ":" {
                left = self.range(left, line)?;
                continue;
            }
            if prec == 6 {
                left = self.comparison(left, op, line)?;
                continue;
            }
            let next_min = if right_assoc { prec } else { prec + 1 };
            let right = self.binary(next_min)?;
            left = self.combine(&op, left, right, line)?;
        }
        Ok(left)
    }

    /// `a:b` or `a:s:b` after `a :` was read.
    fn range(&mut self, start: Expr, line: Line) -> VrResult<Expr> {
        let mid = self.binary(9)?;
        if self.is_op(":") && !self.no_range_colon {
            self.advance();
            self.skip_newlines();
            let stop = self.binary(9)?;
            return Ok(call("#range", vec![start, mid, stop], line));
        }
        Ok(e(ExprKind::Binary(BinOp::Colon, Box::new(start), Box::new(mid)), line))
    }

    /// A comparison chain `a < b <= c` after `a <` was read: `a < b && b <= c`.
    fn comparison(&mut self, first: Expr, op: String, line: Line) -> VrResult<Expr> {
        let mut operands = vec![first, self.binary(7)?];
        let mut ops = vec![op];
        while let Some((op, 6, _)) = self.infix_here() {
            self.advance();
            self.skip_newlines();
            ops.push(op);
            operands.push(self.binary(7)?);
        }
        let mut out: Option<Expr> = None;
        for (k, op) in ops.iter().enumerate() {
            let c = self.combine(op, operands[k].clone(), operands[k + 1].clone(), line)?;
            out = Some(match out {
                None => c,
                Some(prev) => e(ExprKind::Binary(BinOp::AndAnd, Box::new(prev), Box::new(c)), line),
            });
        }
        Ok(out.expect("one comparison at least"))
    }

    fn combine(&mut self, op: &str, a: Expr, b: Expr, line: Line) -> VrResult<Expr> {
        let bin = |o: BinOp| e(ExprKind::Binary(o, Box::new(a.clone()), Box::new(b.clone())), line);
        Ok(match op {
            "&&" => bin(BinOp::AndAnd),
            "||" => bin(BinOp::OrOr),
            "in" | "∈" | "∉" | "isa" | "<:" | ">:" | "|>" | "<|" => unsupported(&format!("operator `{op}`"), line),
            _ if op.starts_with('.') && op.len() > 1 => call(op, vec![a, b], line),
            _ => match binary_op(op) {
                Some(Infix::Bin(o)) => bin(o),
                Some(Infix::Call(f)) => call(f, vec![a, b], line),
                None => unsupported(&format!("operator `{op}`"), line),
            },
        })
    }

    fn unary(&mut self) -> VrResult<Expr> {
        let line = self.line();
        if let Tok::Op(op) = self.peek().clone() {
            let kind = match op.as_str() {
                "-" => Some(UnOp::Neg),
                "+" => Some(UnOp::Plus),
                "!" => Some(UnOp::Not),
                _ => None,
            };
            let dotted = matches!(op.as_str(), ".-" | ".+" | ".!" | ".~");
            if kind.is_some() || dotted || op == "~" || op == "√" {
                self.advance();
                self.enter()?;
                let arg = self.binary(UNARY_POWER);
                self.depth -= 1;
                let arg = arg?;
                if let (Some(UnOp::Neg), ExprKind::Double(v)) = (kind, &arg.kind) {
                    return Ok(e(ExprKind::Double(-v), line));
                }
                if let (Some(UnOp::Neg), ExprKind::Int(v)) = (kind, &arg.kind) {
                    return Ok(e(ExprKind::Int(-v), line));
                }
                return Ok(match (kind, op.as_str()) {
                    (Some(k), _) => e(ExprKind::Unary(k, Box::new(arg)), line),
                    (_, "√") => call("sqrt", vec![arg], line),
                    (_, "~") => call("~", vec![arg], line),
                    (_, dotted) => call(dotted, vec![arg], line),
                });
            }
        }
        self.power()
    }

    /// `a ^ b` binds tighter than a unary operator on its left (`-x^2` is `-(x^2)`) and
    /// takes one on its right (`x^-2`).
    fn power(&mut self) -> VrResult<Expr> {
        let base = self.postfix()?;
        if let Some((op, 14, _)) = self.infix_here() {
            let line = self.line();
            self.advance();
            self.skip_newlines();
            let exp = self.unary()?;
            return self.combine(&op, base, exp, line);
        }
        Ok(base)
    }

    fn postfix(&mut self) -> VrResult<Expr> {
        let mut base = self.primary()?;
        loop {
            let line = self.line();
            let space = self.space_before();
            match self.tok().clone() {
                Tok::Op(o) if o == "(" && !space => {
                    let args = self.call_args()?;
                    base = match base.kind {
                        ExprKind::Var(name) => desugar::call_of(&name, args, line),
                        other => e(ExprKind::CallExpr { callee: Box::new(e(other, base.line)), args }, line),
                    };
                }
                Tok::Op(o) if o == "." && !space && matches!(self.peek_at(1), Tok::Op(p) if p == "(") => {
                    self.advance();
                    let args = self.call_args()?;
                    let ExprKind::Var(name) = &base.kind else {
                        base = unsupported("broadcast call of a computed function", line);
                        continue;
                    };
                    let mut all = vec![Arg { name: None, value: e(ExprKind::Str(name.clone()), line) }];
                    all.extend(args);
                    base = e(ExprKind::Call { func: "#dot".into(), args: all }, line);
                }
                Tok::Op(o) if o == "[" && !space => {
                    base = self.index(base)?;
                }
                Tok::Op(o) if o == "'" && !space => {
                    self.advance();
                    base = call("adjoint", vec![base], line);
                }
                Tok::Op(o) if o == "." && !space && matches!(self.peek_at(1), Tok::Ident(_)) => {
                    self.advance();
                    let Tok::Ident(field) = self.advance() else { unreachable!("checked above") };
                    base = match &base.kind {
                        ExprKind::Var(m) if MODULES.contains(&m.as_str()) => e(ExprKind::Var(field), line),
                        _ => unsupported(&format!("field access `.{field}`"), line),
                    };
                }
                Tok::Op(o) if o == "." && !space && matches!(self.peek_at(1), Tok::Macro(_)) => {
                    // `Threads.@threads`: the macro itself follows.
                    self.advance();
                    return self.primary();
                }
                Tok::Op(o) if o == "::" && !space => {
                    self.advance();
                    let t = self.type_text()?;
                    // `z::T = v` declares `z`'s type for its whole scope: every assignment
                    // to `z` converts to `T`, which would need a pass over the scope; a
                    // conversion of the one value is what compiles.
                    let what = match (&base.kind, self.tok()) {
                        (ExprKind::Var(v), Tok::Op(o)) if o == "=" => {
                            format!("type declaration `{v}::{t}` of a local variable (convert the value instead: `{v} = {t}(...)`)")
                        }
                        _ => format!("type assertion `::{t}` in an expression"),
                    };
                    base = unsupported(&what, line);
                }
                Tok::Op(o) if o == "..." => {
                    self.advance();
                    base = unsupported("splatting `...`", line);
                }
                _ => return Ok(base),
            }
        }
    }

    /// `(args)` of a call: positional and named arguments, keywords after `;`, and a
    /// single generator (`sum(x^2 for x in v)`).
    fn call_args(&mut self) -> VrResult<Vec<Arg>> {
        self.advance(); // (
        self.bracketed(|p| {
            let mut args = Vec::new();
            loop {
                if p.eat_op(")") {
                    return Ok(args);
                }
                if p.eat_op(",") || p.eat_op(";") {
                    continue;
                }
                let named = matches!(p.peek().clone(), Tok::Ident(_)) && matches!(p.peek_at(1), Tok::Op(o) if o == "=");
                if named {
                    let Tok::Ident(name) = p.advance() else { unreachable!("checked above") };
                    p.advance();
                    let value = p.expr()?;
                    args.push(Arg { name: Some(name), value });
                    continue;
                }
                let value = p.expr()?;
                if p.is_kw_here("for") {
                    let g = p.generator(value)?;
                    args.push(Arg { name: None, value: g });
                    continue;
                }
                args.push(Arg { name: None, value });
                if !p.is_op(",") && !p.is_op(";") && !p.is_op(")") {
                    let d = describe(p.peek());
                    return Err(p.error(&format!("expected `,` or `)` in a call, found {d}")));
                }
            }
        })
    }

    fn is_kw_here(&mut self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(k) if k == kw)
    }

    /// `x[i, j]` after `x`: the indices, `:` for a whole dimension and `end` for the
    /// last index (`lastindex`); `T[...]` of a type name is a typed array literal.
    fn index(&mut self, target: Expr) -> VrResult<Expr> {
        let line = self.line();
        if let ExprKind::Var(t) = &target.kind {
            if TYPE_NAMES.contains(&t.as_str()) {
                let t = t.clone();
                let lit = self.array_literal()?;
                return Ok(desugar::typed_literal(&t, lit, line));
            }
        }
        self.advance(); // [
        self.index_level += 1;
        let r = self.bracketed(|p| {
            let mut indices = Vec::new();
            loop {
                if p.eat_op("]") {
                    return Ok(indices);
                }
                if p.eat_op(",") {
                    continue;
                }
                if p.is_op(":") && matches!(p.peek_at(1), Tok::Op(o) if o == "," || o == "]") {
                    p.advance();
                    indices.push(None);
                    continue;
                }
                let ix = p.expr()?;
                indices.push(Some(ix));
                if !p.is_op(",") && !p.is_op("]") {
                    let d = describe(p.peek());
                    return Err(p.error(&format!("expected `,` or `]` in an index, found {d}")));
                }
            }
        });
        self.index_level -= 1;
        let mut indices = r?;
        let n = indices.len();
        for (k, ix) in indices.iter_mut().enumerate() {
            if let Some(ix) = ix {
                desugar::resolve_end(ix, &target, k, n);
            }
        }
        Ok(e(ExprKind::Index { target: Box::new(target), indices, double: false }, line))
    }

    fn primary(&mut self) -> VrResult<Expr> {
        self.enter()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> VrResult<Expr> {
        let line = self.line();
        let tok = self.peek().clone();
        let value = match tok {
            Tok::Int { digits, unsigned } => {
                self.advance();
                if unsigned {
                    unsupported(&format!("unsigned literal `{digits}` (UInt)"), line)
                } else {
                    match digits.parse::<i64>() {
                        Ok(v) => match i32::try_from(v) {
                            Ok(v) => e(ExprKind::Int(v), line),
                            Err(_) => call("#int", vec![e(ExprKind::Str(digits), line)], line),
                        },
                        Err(_) => unsupported(&format!("integer literal `{digits}` beyond Int64 (Int128/BigInt)"), line),
                    }
                }
            }
            Tok::Float(v) => {
                self.advance();
                e(ExprKind::Double(v), line)
            }
            Tok::Float32(v) => {
                self.advance();
                unsupported(&format!("Float32 literal `{v}f0`"), line)
            }
            Tok::Str(s) => {
                self.advance();
                e(ExprKind::Str(s), line)
            }
            Tok::Char(c) => {
                self.advance();
                unsupported(&format!("character literal {c:?}"), line)
            }
            Tok::Macro(m) => return self.macro_call(&m),
            Tok::Ident(name) => return self.ident(name),
            Tok::Op(o) => match o.as_str() {
                "(" => return self.paren(),
                "[" => return self.array_literal(),
                ":" if self.index_level > 0 => {
                    self.advance();
                    unsupported("`:` as a value", line)
                }
                ":" => {
                    self.advance();
                    if let Tok::Ident(s) = self.tok().clone() {
                        self.advance();
                        unsupported(&format!("symbol `:{s}`"), line)
                    } else {
                        unsupported("`:` as a value", line)
                    }
                }
                "$" => {
                    self.advance();
                    unsupported("interpolation `$`", line)
                }
                _ => return Err(self.error(&format!("unexpected `{o}`"))),
            },
            Tok::Newline => return Err(self.error("unexpected end of line")),
            Tok::Eof => return Err(self.error("unexpected end of input")),
        };
        // A number right before a name or `(` multiplies it (`2x`, `2π`, `2(x + 1)`).
        if matches!(value.kind, ExprKind::Int(_) | ExprKind::Double(_)) && !self.space_before() {
            let juxtaposed = match self.tok() {
                Tok::Ident(n) => !BLOCK_END.contains(&n.as_str()) && n != "for" && n != "in",
                Tok::Op(o) => o == "(",
                _ => false,
            };
            if juxtaposed {
                let rhs = self.power()?;
                return Ok(e(ExprKind::Binary(BinOp::Mul, Box::new(value), Box::new(rhs)), line));
            }
        }
        Ok(value)
    }

    fn ident(&mut self, name: String) -> VrResult<Expr> {
        let line = self.line();
        match name.as_str() {
            "true" | "false" => {
                self.advance();
                return Ok(e(ExprKind::Bool(name == "true"), line));
            }
            "nothing" => {
                self.advance();
                return Ok(e(ExprKind::Null, line));
            }
            "end" if self.index_level > 0 => {
                self.advance();
                return Ok(call(desugar::END_MARKER, vec![], line));
            }
            "begin" if self.index_level > 0 => {
                self.advance();
                return Ok(e(ExprKind::Int(1), line));
            }
            "if" => return self.if_expr(),
            "begin" => {
                self.advance();
                let body = self.block_until(&["end"])?;
                self.expect_kw("end")?;
                return Ok(e(ExprKind::Block(body), line));
            }
            "let" => return self.let_expr(),
            "for" => return self.for_expr(false),
            "while" => {
                self.advance();
                let cond = self.expr()?;
                let body = self.block_until(&["end"])?;
                self.expect_kw("end")?;
                return Ok(e(ExprKind::While { cond: Box::new(cond), body: Box::new(e(ExprKind::Block(body), line)) }, line));
            }
            "function" => {
                self.skip_statement();
                return Ok(unsupported("anonymous function", line));
            }
            "do" | "try" | "quote" | "struct" | "macro" | "module" => {
                self.skip_statement();
                return Ok(unsupported(&format!("`{name}`"), line));
            }
            // `c && break`, `x < 0 && return 0`: control flow as an operand.
            "break" | "continue" | "return" => return self.statement(),
            k if BLOCK_END.contains(&k) => {
                return Err(self.error(&format!("unexpected `{k}`")));
            }
            _ => {}
        }
        self.advance();
        let name = self.qualified_rest(name);
        // `T{...}`: a parametric type used as a constructor (`Vector{Float64}(undef, n)`).
        if matches!(self.tok(), Tok::Op(o) if o == "{") && !self.space_before() {
            self.pos -= 1;
            let t = self.type_text()?;
            return Ok(e(ExprKind::Var(t), line));
        }
        if matches!(self.tok(), Tok::Op(o) if o == "->") {
            self.skip_lambda();
            return Ok(unsupported("anonymous function `->`", line));
        }
        Ok(e(ExprKind::Var(name), line))
    }

    fn skip_lambda(&mut self) {
        self.advance();
        let _ = self.expr();
    }

    /// `if c ... elseif c ... else ... end`.
    fn if_expr(&mut self) -> VrResult<Expr> {
        let line = self.line();
        self.advance(); // if / elseif
        let cond = self.bracketed_cond()?;
        let then = self.block_until(&["elseif", "else", "end"])?;
        let then = e(ExprKind::Block(then), line);
        let els = if self.is_kw("elseif") {
            Some(Box::new(self.if_expr()?))
        } else if self.is_kw("else") {
            let eline = self.line();
            self.advance();
            let b = self.block_until(&["end"])?;
            self.expect_kw("end")?;
            Some(Box::new(e(ExprKind::Block(b), eline)))
        } else {
            self.expect_kw("end")?;
            None
        };
        // `elseif` consumed the `end` in its own recursion.
        Ok(e(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els }, line))
    }

    /// A condition after `if`/`while`/`elseif` (newlines end it).
    fn bracketed_cond(&mut self) -> VrResult<Expr> {
        let saved = (self.nl_skip, self.space_sep, self.index_level);
        self.nl_skip = 0;
        self.space_sep = false;
        self.index_level = 0;
        let r = self.expr();
        (self.nl_skip, self.space_sep, self.index_level) = saved;
        r
    }

    /// `let a = v, b = w; body end`: a block in which `a` and `b` are new variables
    /// (renamed, so that they do not change variables of the function).
    fn let_expr(&mut self) -> VrResult<Expr> {
        let line = self.line();
        self.advance();
        let mut bindings = Vec::new();
        while let Tok::Ident(n) = self.tok().clone() {
            if BLOCK_END.contains(&n.as_str()) {
                break;
            }
            self.advance();
            let value = if self.eat_op("=") { self.expr()? } else { e(ExprKind::Var(n.clone()), line) };
            bindings.push((n, value));
            if !self.eat_op(",") {
                break;
            }
        }
        let body = self.block_until(&["end"])?;
        self.expect_kw("end")?;
        Ok(desugar::let_block(bindings, body, line, &mut || {
            self.counter += 1;
            self.counter
        }))
    }

    /// `for i in r, j in s ... end` (nested loops); `parallel`: `Threads.@threads`.
    fn for_expr(&mut self, parallel: bool) -> VrResult<Expr> {
        let line = self.line();
        self.advance(); // for
        let mut iters = Vec::new();
        loop {
            let iline = self.line();
            let var = match self.next() {
                Tok::Ident(n) => desugar::LoopVar::Name(n),
                Tok::Op(o) if o == "(" => {
                    let mut names = Vec::new();
                    while let Tok::Ident(n) = self.next() {
                        names.push(n);
                        if !self.eat_op(",") {
                            break;
                        }
                    }
                    self.expect_op(")")?;
                    desugar::LoopVar::Tuple(names)
                }
                other => return Err(self.error(&format!("expected a loop variable, found {}", describe(&other)))),
            };
            match self.next() {
                Tok::Ident(k) if k == "in" => {}
                Tok::Op(o) if o == "=" || o == "∈" => {}
                other => return Err(self.error(&format!("expected `in` after the loop variable, found {}", describe(&other)))),
            }
            let seq = self.bracketed_cond()?;
            iters.push((var, seq, iline));
            if !self.eat_op(",") {
                break;
            }
            self.skip_newlines();
        }
        let body = self.block_until(&["end"])?;
        self.expect_kw("end")?;
        let mut fresh = || {
            self.counter += 1;
            self.counter
        };
        Ok(desugar::for_loops(iters, e(ExprKind::Block(body), line), parallel, line, &mut fresh))
    }

    /// `( ... )`: grouping, a tuple, a block `(a; b)` or a generator.
    fn paren(&mut self) -> VrResult<Expr> {
        let line = self.line();
        self.advance();
        self.bracketed(|p| {
            if p.eat_op(")") {
                return Ok(unsupported("empty tuple `()`", line));
            }
            let first = p.assignment()?;
            if p.is_kw_here("for") {
                let g = p.generator(first)?;
                p.expect_op(")")?;
                return Ok(g);
            }
            if p.eat_op(")") {
                return Ok(first);
            }
            if p.is_op(";") {
                let mut items = vec![first];
                while p.eat_op(";") {
                    if p.is_op(")") {
                        break;
                    }
                    items.push(p.assignment()?);
                }
                p.expect_op(")")?;
                return Ok(e(ExprKind::Block(items), line));
            }
            // A tuple `(a, b)` or `(a,)`.
            let mut items = vec![first];
            while p.eat_op(",") {
                if p.is_op(")") {
                    break;
                }
                items.push(p.expr()?);
            }
            p.expect_op(")")?;
            Ok(e(ExprKind::Tuple(items), line))
        })
    }

    /// After `body` inside `(`/`[`: `for x in r [, y in s]` (and no `if` filter).
    fn generator(&mut self, body: Expr) -> VrResult<Expr> {
        let line = self.line();
        self.advance(); // for
        let mut iters = Vec::new();
        loop {
            let var = match self.next() {
                Tok::Ident(n) => n,
                other => return Err(self.error(&format!("expected a variable in a comprehension, found {}", describe(&other)))),
            };
            match self.next() {
                Tok::Ident(k) if k == "in" => {}
                Tok::Op(o) if o == "=" || o == "∈" => {}
                other => return Err(self.error(&format!("expected `in` in a comprehension, found {}", describe(&other)))),
            }
            let seq = self.binary(0)?;
            iters.push((var, seq));
            if self.is_kw_here("if") {
                self.advance();
                let _ = self.binary(0)?;
                return Ok(unsupported("comprehension with an `if` filter", line));
            }
            if self.is_kw_here("for") {
                return Ok(unsupported("comprehension with nested `for`", line));
            }
            if !self.eat_op(",") {
                break;
            }
        }
        let id = {
            self.counter += 1;
            self.counter
        };
        Ok(desugar::generator(body, iters, line, id))
    }

    /// `[a, b]`, `[a b; c d]`, `[a; b]`, `[f(x) for x in r]`, `[]`.
    fn array_literal(&mut self) -> VrResult<Expr> {
        let line = self.line();
        self.advance(); // [
        let saved = (self.nl_skip, self.space_sep, self.no_range_colon, self.index_level);
        self.nl_skip = 0;
        self.no_range_colon = false;
        self.index_level = 0;
        let r = self.array_items(line);
        (self.nl_skip, self.space_sep, self.no_range_colon, self.index_level) = saved;
        r
    }

    fn array_items(&mut self, line: Line) -> VrResult<Expr> {
        self.skip_newlines();
        if self.eat_op("]") {
            return Ok(call("#vect", vec![], line));
        }
        self.space_sep = true;
        let first = self.expr()?;
        self.space_sep = false;
        if self.is_kw_here("for") {
            self.nl_skip += 1;
            let g = self.generator(first);
            self.nl_skip -= 1;
            let g = g?;
            self.skip_newlines();
            self.expect_op("]")?;
            return Ok(desugar::comprehension(g));
        }
        // Rows of space-separated elements, separated by `;` or newlines; or a
        // comma-separated vector.
        if self.is_op(",") {
            let mut items = vec![first];
            while self.eat_op(",") {
                self.skip_newlines();
                if self.is_op("]") {
                    break;
                }
                self.nl_skip += 1;
                let x = self.expr();
                self.nl_skip -= 1;
                items.push(x?);
            }
            self.skip_newlines();
            self.expect_op("]")?;
            return Ok(call("#vect", items, line));
        }
        let mut rows: Vec<Vec<Expr>> = vec![vec![first]];
        let mut row_breaks = 0;
        loop {
            match self.tok().clone() {
                Tok::Op(o) if o == "]" => {
                    self.advance();
                    break;
                }
                Tok::Op(o) if o == ";" || o == "\n" => {
                    self.advance();
                    row_breaks += 1;
                    self.skip_newlines();
                    if !self.is_op("]") {
                        rows.push(Vec::new());
                    }
                }
                Tok::Newline => {
                    self.skip_newlines();
                    if !self.is_op("]") {
                        row_breaks += 1;
                        rows.push(Vec::new());
                    }
                }
                Tok::Eof => return Err(self.error("missing `]`")),
                _ => {
                    self.space_sep = true;
                    let x = self.expr();
                    self.space_sep = false;
                    rows.last_mut().expect("a row").push(x?);
                }
            }
        }
        let _ = row_breaks;
        Ok(desugar::matrix_literal(rows, line))
    }

    /// A macro call at the cursor: `@name(args)` or `@name arg arg ...` to the end of
    /// the line.
    fn macro_call(&mut self, name: &str) -> VrResult<Expr> {
        let line = self.line();
        self.advance();
        let mut args = Vec::new();
        if matches!(self.tok(), Tok::Op(o) if o == "(") && !self.space_before() {
            for a in self.call_args()? {
                args.push(a.value);
            }
        } else if name == "threads" && self.is_kw("for") {
            return self.for_expr(true);
        } else if (name == "threads") && matches!(self.tok(), Tok::Ident(s) if s == ":static" || s == ":dynamic") {
            self.advance();
            return self.for_expr(true);
        } else {
            let saved = self.space_sep;
            loop {
                match self.tok() {
                    Tok::Newline | Tok::Eof => break,
                    Tok::Op(o) if matches!(o.as_str(), ";" | ")" | "]" | "}" | ",") => break,
                    Tok::Ident(k) if BLOCK_END.contains(&k.as_str()) => break,
                    Tok::Op(o) if o == ":" && name == "threads" => {
                        // `@threads :static for ...`
                        self.advance();
                        self.advance();
                        continue;
                    }
                    _ => {}
                }
                if name == "threads" && self.is_kw("for") {
                    self.space_sep = saved;
                    return self.for_expr(true);
                }
                self.space_sep = true;
                let a = self.assignment();
                self.space_sep = saved;
                args.push(a?);
            }
        }
        Ok(desugar::macro_call(name, args, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> Expr {
        parse_expr(src).unwrap()
    }

    #[test]
    fn precedence_follows_julia() {
        // -x^2 is -(x^2); 1:n-1 is 1:(n-1); a << 1 + b is (a << 1) + b.
        assert!(matches!(one("-x^2").kind, ExprKind::Unary(UnOp::Neg, ref a) if matches!(a.kind, ExprKind::Binary(BinOp::Pow, ..))));
        assert!(matches!(one("1:n-1").kind, ExprKind::Binary(BinOp::Colon, _, ref b) if matches!(b.kind, ExprKind::Binary(BinOp::Sub, ..))));
        assert!(matches!(one("a << 1 + b").kind, ExprKind::Binary(BinOp::Add, ref a, _) if matches!(a.kind, ExprKind::Call { ref func, .. } if func == "<<")));
        assert!(matches!(one("2x").kind, ExprKind::Binary(BinOp::Mul, ..)));
        assert!(matches!(one("c ? 1 : 2").kind, ExprKind::If { .. }));
        assert!(matches!(one("1:2:9").kind, ExprKind::Call { ref func, .. } if func == "#range"));
    }

    #[test]
    fn end_in_an_index_is_lastindex() {
        let e = one("x[end - 1]");
        let ExprKind::Index { indices, .. } = e.kind else { panic!() };
        let ix = indices[0].as_ref().unwrap();
        assert!(
            matches!(&ix.kind, ExprKind::Binary(BinOp::Sub, a, _) if matches!(&a.kind, ExprKind::Call { func, args } if func == "lastindex" && args.len() == 1))
        );
        let e = one("A[2:end, end]");
        let ExprKind::Index { indices, .. } = e.kind else { panic!() };
        assert!(matches!(&indices[1].as_ref().unwrap().kind, ExprKind::Call { func, args } if func == "lastindex" && args.len() == 2));
    }

    #[test]
    fn files_keep_functions_and_constants_and_step_over_the_rest() {
        let src = "using Test\ninclude(\"x.jl\")\nconst N = 10\nstruct P\n  x::Int\nend\nf(x) = x + N\nfunction g(a::Vector{Float64}, n)\n  s = 0.0\n  for i in 1:n\n    s += a[i]\n  end\n  return s\nend\n@test f(1) == 11\n@time g([1.0], 1)\nprintln(\"done\")\n";
        let s = parse_source(src).unwrap();
        let names: Vec<&str> = s.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
        assert_eq!(s.functions[1].annotations[0].as_deref(), Some("Vector{Float64}"));
        assert_eq!(s.constants.len(), 1);
        assert!(s.broken.is_empty());
    }

    #[test]
    fn a_broken_function_is_remembered() {
        let s = parse_source("function bad(x)\n  x +* 1\nend\nok(x) = x\n").unwrap();
        assert_eq!(s.broken.len(), 1);
        assert_eq!(s.broken[0].0, "bad");
        assert_eq!(s.functions.len(), 1);
    }
}
