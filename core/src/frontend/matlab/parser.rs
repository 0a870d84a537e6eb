//! The MATLAB parser: tokens to the syntax tree of `ast`, for function files (one or
//! more `function` definitions, with or without `end`/`endfunction`, Octave's `endif`,
//! `endfor`, ... included). Operator precedence is Octave's (lowest first): `||`, `&&`,
//! `|`, `&`, comparisons, `:`, `+ -`, `* / \ .* ./ .\`, prefix `+ - ~`, `^ .^` (left
//! associative, and tighter than prefix minus: `-2^2` is -4), postfix `'` `.'` and
//! indexing. Inside `[]` whitespace separates elements (`[1 -2]` is two elements,
//! `[1 - 2]` and `[1 -  2]`... as MATLAB reads them, see `ends_element`).

use super::ast::{Lhs, MExpr, MExprKind, MFunction, Stmt, StmtKind};
use super::lexer::{lex, Tok, Token};
use crate::frontend::hir::Line;
use crate::runtime::error::{VrError, VrResult};

/// Parse a function file into its functions, in order (the first is the file's main
/// function).
pub fn parse_file(src: &str) -> VrResult<Vec<MFunction>> {
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0, matrix: vec![false], index_depth: 0, depth: 0, loops: 0 };
    let mut out = Vec::new();
    p.skip_separators();
    while p.peek() != &Tok::Eof {
        if !p.is_keyword("function") {
            let line = p.line();
            return Err(VrError::parse(format!(
                "line {line}: a script (statements outside any function) does not compile; a function file starts with `function`"
            ))
            .with_line(Some(line)));
        }
        out.push(p.function()?);
        p.skip_separators();
    }
    if out.is_empty() {
        return Err(VrError::parse("the file defines no function"));
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// Whether the innermost bracket is `[`/`{` (where whitespace separates elements)
    /// rather than `(`.
    matrix: Vec<bool>,
    /// > 0 inside the arguments of `a(...)`, where `end` is a value.
    index_depth: u32,
    /// Nesting depth, bounded so that no input exhausts the stack.
    depth: u32,
    /// The loops around the statement being read: `break` and `continue` need one.
    loops: u32,
}

const MAX_DEPTH: u32 = 200;

/// Words that end a block.
const BLOCK_ENDS: [&str; 14] = [
    "end", "endfunction", "endif", "endfor", "endparfor", "endwhile", "endswitch", "else", "elseif", "case", "otherwise", "until", "function", "end_try_catch",
];

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("number {v}"),
        Tok::Imag(v) => format!("number {v}i"),
        Tok::Str(s) => format!("string '{s}'"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Op(o) => format!("`{o}`"),
        Tok::Comma => "`,`".into(),
        Tok::Semi => "`;`".into(),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of file".into(),
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn token(&self) -> &Token {
        &self.toks[self.pos]
    }
    fn line(&self) -> Line {
        self.toks[self.pos].line
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn error(&self, msg: &str) -> VrError {
        let line = self.line();
        VrError::parse(format!("line {line}: {msg}")).with_line(Some(line))
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }
    fn is_keyword(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }
    fn expect_op(&mut self, op: &str) -> VrResult<()> {
        if self.is_op(op) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(&format!("expected `{op}`, found {}", describe(self.peek()))))
        }
    }
    fn ident(&mut self) -> VrResult<String> {
        match self.bump() {
            Tok::Ident(s) => Ok(s),
            other => {
                self.pos -= 1;
                Err(self.error(&format!("expected a name, found {}", describe(&other))))
            }
        }
    }
    fn skip_separators(&mut self) {
        while matches!(self.peek(), Tok::Newline | Tok::Semi | Tok::Comma) {
            self.bump();
        }
    }
    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Tok::Newline) {
            self.bump();
        }
    }
    fn at_block_end(&self) -> bool {
        match self.peek() {
            Tok::Eof => true,
            Tok::Ident(s) => BLOCK_ENDS.contains(&s.as_str()),
            _ => false,
        }
    }
    /// `end`, or Octave's specific `endif`/`endfor`/... for this block.
    fn end_block(&mut self, specific: &str) -> VrResult<()> {
        match self.peek() {
            Tok::Ident(s) if s == "end" || s == specific => {
                self.bump();
                Ok(())
            }
            other => Err(self.error(&format!("expected `end` (or `{specific}`), found {}", describe(other)))),
        }
    }

    fn function(&mut self) -> VrResult<MFunction> {
        let line = self.line();
        self.bump(); // `function`
        // `function name`, `function y = name(...)`, `function [a, b] = name(...)`.
        let mut outputs = Vec::new();
        let name;
        if self.is_op("[") {
            self.bump();
            while !self.is_op("]") {
                outputs.push(self.ident()?);
                if matches!(self.peek(), Tok::Comma) {
                    self.bump();
                }
            }
            self.bump();
            self.expect_op("=")?;
            name = self.ident()?;
        } else {
            let first = self.ident()?;
            if self.is_op("=") {
                self.bump();
                outputs.push(first);
                name = self.ident()?;
            } else {
                name = first;
            }
        }
        let mut params = Vec::new();
        if self.is_op("(") {
            self.bump();
            let mut unused = 0;
            while !self.is_op(")") {
                if self.is_op("~") {
                    self.bump();
                    unused += 1;
                    params.push(format!("__unused{unused}"));
                } else {
                    let name = self.ident()?;
                    // Octave refuses a repeated parameter too; it gave two variables of
                    // one name (found by fuzzing).
                    if params.contains(&name) {
                        return Err(self.error(&format!("parameter `{name}` appears twice in the parameter list")));
                    }
                    params.push(name);
                }
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::Op(")") => {}
                    other => return Err(self.error(&format!("expected `,` or `)` in the parameter list, found {}", describe(other)))),
                }
            }
            self.bump();
        }
        for v in params.iter().chain(&outputs) {
            if v == "varargin" || v == "varargout" {
                return Err(self.error(&format!("`{v}` (a cell array of arguments) does not compile")));
            }
        }
        let body = self.block()?;
        // A function ends with `end`/`endfunction`, at the next `function`, or at the
        // end of the file.
        if self.is_keyword("end") || self.is_keyword("endfunction") {
            self.bump();
        } else if !self.is_keyword("function") && self.peek() != &Tok::Eof {
            return Err(self.error(&format!("unexpected {} in function `{name}`", describe(self.peek()))));
        }
        Ok(MFunction { name, params, outputs, body, line })
    }

    /// Statements up to a word that ends the block (not consumed).
    fn block(&mut self) -> VrResult<Vec<Stmt>> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("statements nested too deeply"));
        }
        let mut out = Vec::new();
        loop {
            self.skip_separators();
            if self.at_block_end() {
                break;
            }
            out.push(self.statement()?);
        }
        self.depth -= 1;
        Ok(out)
    }

    /// Consume the end of a simple statement; true when it is displayed (no `;`).
    fn terminator(&mut self) -> VrResult<bool> {
        match self.peek() {
            Tok::Semi => {
                self.bump();
                Ok(false)
            }
            Tok::Comma | Tok::Newline => {
                self.bump();
                Ok(true)
            }
            Tok::Eof => Ok(true),
            // `if c, x = 1, end`: a block word may follow on the same line.
            _ if self.at_block_end() => Ok(true),
            other => Err(self.error(&format!("unexpected {} after a statement", describe(other)))),
        }
    }

    fn statement(&mut self) -> VrResult<Stmt> {
        let line = self.line();
        let kind = match self.peek().clone() {
            Tok::Ident(w) => match w.as_str() {
                "if" => self.if_stmt()?,
                "for" | "parfor" => {
                    self.loops += 1;
                    let s = self.for_stmt(w == "parfor");
                    self.loops -= 1;
                    s?
                }
                "while" => {
                    self.bump();
                    let cond = self.expr()?;
                    self.loops += 1;
                    let body = self.block();
                    self.loops -= 1;
                    let body = body?;
                    self.end_block("endwhile")?;
                    StmtKind::While { cond, body }
                }
                "do" => {
                    self.bump();
                    self.loops += 1;
                    let body = self.block();
                    self.loops -= 1;
                    let body = body?;
                    if !self.is_keyword("until") {
                        return Err(self.error("expected `until` after `do`"));
                    }
                    self.bump();
                    let cond = self.expr()?;
                    StmtKind::DoUntil { body, cond }
                }
                "switch" => self.switch_stmt()?,
                "break" | "continue" | "return" => {
                    // Octave's parse error; the verifier rejected the module otherwise
                    // (found by fuzzing).
                    if w != "return" && self.loops == 0 {
                        return Err(self.error(&format!("`{w}` must appear within a loop")));
                    }
                    self.bump();
                    self.terminator()?;
                    match w.as_str() {
                        "break" => StmtKind::Break,
                        "continue" => StmtKind::Continue,
                        _ => StmtKind::Return,
                    }
                }
                "global" | "persistent" => {
                    self.bump();
                    while matches!(self.peek(), Tok::Ident(_)) {
                        self.bump();
                    }
                    self.terminator()?;
                    StmtKind::Unsupported(format!("`{w}` variables"))
                }
                "try" | "unwind_protect" => {
                    // Skip the whole construct: it does not compile.
                    self.bump();
                    self.block()?;
                    while self.is_keyword("catch") || self.is_keyword("unwind_protect_cleanup") {
                        self.bump();
                        self.block()?;
                    }
                    if !(self.is_keyword("end") || self.is_keyword("end_try_catch") || self.is_keyword("end_unwind_protect")) {
                        return Err(self.error(&format!("expected the end of `{w}`")));
                    }
                    self.bump();
                    StmtKind::Unsupported(format!("`{w}`"))
                }
                _ => self.simple_statement()?,
            },
            _ => self.simple_statement()?,
        };
        Ok(Stmt { kind, line })
    }

    fn if_stmt(&mut self) -> VrResult<StmtKind> {
        self.bump(); // `if`
        let mut clauses = Vec::new();
        let cond = self.expr()?;
        let body = self.block()?;
        clauses.push((cond, body));
        let mut els = None;
        loop {
            if self.is_keyword("elseif") {
                self.bump();
                self.skip_newlines();
                let c = self.expr()?;
                let b = self.block()?;
                clauses.push((c, b));
            } else if self.is_keyword("else") {
                self.bump();
                // Octave reads `else if c ... end end` as nested; so do we.
                els = Some(self.block()?);
            } else {
                break;
            }
        }
        self.end_block("endif")?;
        Ok(StmtKind::If { clauses, els })
    }

    fn for_stmt(&mut self, parallel: bool) -> VrResult<StmtKind> {
        self.bump();
        // `for i = r`, also `for (i = r)` and `parfor (i = r, workers)`.
        let paren = self.is_op("(");
        if paren {
            self.bump();
            self.matrix.push(false);
        }
        let var = self.ident()?;
        self.expect_op("=")?;
        let range = self.expr()?;
        if paren {
            if parallel && matches!(self.peek(), Tok::Comma) {
                // The worker count is a hint.
                self.bump();
                self.expr()?;
            }
            self.matrix.pop();
            self.expect_op(")")?;
        }
        let body = self.block()?;
        self.end_block(if parallel { "endparfor" } else { "endfor" })?;
        Ok(StmtKind::For { var, range, body, parallel })
    }

    fn switch_stmt(&mut self) -> VrResult<StmtKind> {
        self.bump();
        let subject = self.expr()?;
        self.skip_separators();
        let mut cases = Vec::new();
        let mut otherwise = None;
        loop {
            if self.is_keyword("case") {
                self.bump();
                let label = self.expr()?;
                let body = self.block()?;
                cases.push((label, body));
            } else if self.is_keyword("otherwise") {
                self.bump();
                otherwise = Some(self.block()?);
            } else {
                break;
            }
        }
        self.end_block("endswitch")?;
        Ok(StmtKind::Switch { subject, cases, otherwise })
    }

    /// An assignment or an expression statement.
    fn simple_statement(&mut self) -> VrResult<StmtKind> {
        // `[a, b] = ...`: a bracket whose match is followed by `=`.
        if self.is_op("[") && self.multi_assignment_ahead() {
            let lhs = self.output_list()?;
            self.expect_op("=")?;
            let rhs = self.expr()?;
            let printed = self.terminator()?;
            return Ok(StmtKind::Assign { lhs, rhs, printed, bracketed: true });
        }
        let e = self.expr()?;
        if self.is_op("=") {
            self.bump();
            let lhs = self.to_lhs(&e)?;
            let rhs = self.expr()?;
            let printed = self.terminator()?;
            return Ok(StmtKind::Assign { lhs: vec![lhs], rhs, printed, bracketed: false });
        }
        // Octave's `x += v` and `x++`.
        for (op, bin) in [("+=", "+"), ("-=", "-"), ("*=", "*"), ("/=", "/"), ("^=", "^")] {
            if self.is_op(op) {
                let line = self.line();
                self.bump();
                let lhs = self.to_lhs(&e)?;
                let rhs = self.expr()?;
                let printed = self.terminator()?;
                let value = MExpr::new(MExprKind::Binary(bin, Box::new(e), Box::new(rhs)), line);
                return Ok(StmtKind::Assign { lhs: vec![lhs], rhs: value, printed, bracketed: false });
            }
        }
        for (op, bin) in [("++", "+"), ("--", "-")] {
            if self.is_op(op) {
                let line = self.line();
                self.bump();
                let lhs = self.to_lhs(&e)?;
                let printed = self.terminator()?;
                let value = MExpr::new(MExprKind::Binary(bin, Box::new(e), Box::new(MExpr::new(MExprKind::Num(1.0), line))), line);
                return Ok(StmtKind::Assign { lhs: vec![lhs], rhs: value, printed, bracketed: false });
            }
        }
        let printed = self.terminator()?;
        Ok(StmtKind::Expr { e, printed })
    }

    fn multi_assignment_ahead(&self) -> bool {
        let mut depth = 0;
        let mut k = self.pos;
        while k < self.toks.len() {
            match &self.toks[k].tok {
                Tok::Op("[" | "(" | "{") => depth += 1,
                Tok::Op("]" | ")" | "}") => {
                    depth -= 1;
                    if depth == 0 {
                        return matches!(self.toks.get(k + 1).map(|t| &t.tok), Some(Tok::Op("=")));
                    }
                }
                Tok::Newline | Tok::Eof | Tok::Semi => return false,
                _ => {}
            }
            k += 1;
        }
        false
    }

    /// `[a, b, ~, c(i)]` on the left of `=`.
    fn output_list(&mut self) -> VrResult<Vec<Lhs>> {
        self.expect_op("[")?;
        self.matrix.push(false);
        let mut out = Vec::new();
        while !self.is_op("]") {
            if self.is_op("~") && matches!(self.peek_at(1), Tok::Comma | Tok::Op("]")) {
                self.bump();
                out.push(Lhs::Tilde);
            } else {
                let e = self.postfix()?;
                out.push(self.to_lhs(&e)?);
            }
            if matches!(self.peek(), Tok::Comma) {
                self.bump();
            }
        }
        self.matrix.pop();
        self.bump();
        Ok(out)
    }

    fn to_lhs(&self, e: &MExpr) -> VrResult<Lhs> {
        match &e.kind {
            MExprKind::Ident(n) => Ok(Lhs::Var(n.clone())),
            MExprKind::Apply(t, args) => match &t.kind {
                MExprKind::Ident(n) => Ok(Lhs::Index(n.clone(), args.clone())),
                _ => Ok(Lhs::Unsupported("assignment into an index of an expression".into())),
            },
            MExprKind::Unsupported(what) => Ok(Lhs::Unsupported(what.clone())),
            _ => Err(VrError::parse(format!("line {}: this cannot be assigned to", e.line)).with_line(Some(e.line))),
        }
    }

    // ----- expressions -----

    fn expr(&mut self) -> VrResult<MExpr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        let r = self.binary(0);
        self.depth -= 1;
        r
    }

    /// Does the token at the current position end a matrix element (whitespace inside
    /// `[]` separating elements)? `[a -b]` and `[a (1)]` are two elements; `[a - b]`,
    /// `[a -b]`... as MATLAB: a `+`/`-` with space before and none after starts a new
    /// element.
    fn ends_element(&self) -> bool {
        if !*self.matrix.last().unwrap_or(&false) {
            return false;
        }
        let t = self.token();
        if !t.space_before {
            return false;
        }
        match &t.tok {
            Tok::Op("+" | "-") => !self.toks.get(self.pos + 1).is_some_and(|n| n.space_before),
            Tok::Op("(" | "[" | "{" | "@" | "~") => !matches!((&t.tok, self.peek_at(1)), (Tok::Op("~"), Tok::Op("="))),
            Tok::Num(_) | Tok::Imag(_) | Tok::Ident(_) | Tok::Str(_) => true,
            _ => false,
        }
    }

    /// Binding power of an infix operator (higher binds tighter).
    fn infix(&self) -> Option<(&'static str, u8)> {
        let op = match self.peek() {
            Tok::Op(o) => *o,
            _ => return None,
        };
        let p = match op {
            "||" => 1,
            "&&" => 2,
            "|" => 3,
            "&" => 4,
            "==" | "~=" | "<" | "<=" | ">" | ">=" => 5,
            ":" => 6,
            "+" | "-" => 7,
            "*" | "/" | "\\" | ".*" | "./" | ".\\" => 8,
            _ => return None,
        };
        Some((op, p))
    }

    fn binary(&mut self, min: u8) -> VrResult<MExpr> {
        let mut lhs = self.unary()?;
        loop {
            if self.ends_element() {
                break;
            }
            let Some((op, p)) = self.infix() else { break };
            if p < min || (p == 6 && min > 6) {
                break;
            }
            let line = self.line();
            self.bump();
            if op == ":" {
                // `a:b` or `a:b:c` (start, step, stop); ranges do not nest.
                let second = self.binary(7)?;
                if self.is_op(":") && !self.ends_element() {
                    self.bump();
                    let third = self.binary(7)?;
                    lhs = MExpr::new(MExprKind::Range { start: Box::new(lhs), step: Some(Box::new(second)), stop: Box::new(third) }, line);
                } else {
                    lhs = MExpr::new(MExprKind::Range { start: Box::new(lhs), step: None, stop: Box::new(second) }, line);
                }
                continue;
            }
            let rhs = self.binary(p + 1)?;
            lhs = MExpr::new(MExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), line);
        }
        Ok(lhs)
    }

    /// Prefix operators (below `^`: `-2^2` is -4).
    fn unary(&mut self) -> VrResult<MExpr> {
        let line = self.line();
        for op in ["-", "+", "~"] {
            if self.is_op(op) {
                self.bump();
                let a = self.unary()?;
                return Ok(MExpr::new(MExprKind::Unary(op, Box::new(a)), line));
            }
        }
        if self.is_op("++") || self.is_op("--") {
            return Err(self.error("prefix `++`/`--` does not compile"));
        }
        self.power()
    }

    /// `a ^ b`, left associative; the exponent may carry a prefix sign (`2^-1`).
    fn power(&mut self) -> VrResult<MExpr> {
        let mut lhs = self.postfix()?;
        while (self.is_op("^") || self.is_op(".^")) && !self.ends_element() {
            let line = self.line();
            let op = if self.is_op("^") { "^" } else { ".^" };
            self.bump();
            let rhs = self.power_operand()?;
            lhs = MExpr::new(MExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), line);
        }
        Ok(lhs)
    }

    fn power_operand(&mut self) -> VrResult<MExpr> {
        let line = self.line();
        for op in ["-", "+", "~"] {
            if self.is_op(op) {
                self.bump();
                let a = self.power_operand()?;
                return Ok(MExpr::new(MExprKind::Unary(op, Box::new(a)), line));
            }
        }
        self.postfix()
    }

    /// A primary with its postfix operators: `a(i)`, `a'`, `a.'`, `a.f`, `a{i}`.
    fn postfix(&mut self) -> VrResult<MExpr> {
        let mut e = self.primary()?;
        loop {
            let line = self.line();
            let spaced = self.token().space_before;
            let in_matrix = *self.matrix.last().unwrap_or(&false);
            if self.is_op("(") && !(spaced && in_matrix) {
                self.bump();
                let args = self.arguments(")")?;
                e = MExpr::new(MExprKind::Apply(Box::new(e), args), line);
            } else if self.is_op("'") || self.is_op(".'") {
                let op = if self.is_op("'") { "'" } else { ".'" };
                self.bump();
                e = MExpr::new(MExprKind::Postfix(op, Box::new(e)), line);
            } else if self.is_op("{") && !(spaced && in_matrix) {
                self.bump();
                self.arguments("}")?;
                e = MExpr::new(MExprKind::Unsupported("cell array indexing `c{...}`".into()), line);
            } else if self.is_op(".") && !spaced {
                self.bump();
                if self.is_op("(") {
                    self.bump();
                    self.arguments(")")?;
                } else {
                    self.ident()?;
                }
                e = MExpr::new(MExprKind::Unsupported("a structure field `s.f`".into()), line);
            } else {
                break;
            }
        }
        Ok(e)
    }

    /// Arguments up to `close`: expressions, bare `:`, and `end` as a value.
    fn arguments(&mut self, close: &str) -> VrResult<Vec<MExpr>> {
        self.matrix.push(false);
        self.index_depth += 1;
        let mut args = Vec::new();
        self.skip_newlines();
        while !self.is_op(close) {
            let line = self.line();
            if self.is_op(":") && matches!(self.peek_at(1), Tok::Comma | Tok::Op(")") | Tok::Op("}")) {
                self.bump();
                args.push(MExpr::new(MExprKind::Colon, line));
            } else {
                args.push(self.expr()?);
            }
            self.skip_newlines();
            match self.peek() {
                Tok::Comma => {
                    self.bump();
                    self.skip_newlines();
                }
                Tok::Op(o) if *o == close => {}
                other => {
                    let msg = format!("expected `,` or `{close}` among arguments, found {}", describe(other));
                    self.matrix.pop();
                    self.index_depth -= 1;
                    return Err(self.error(&msg));
                }
            }
        }
        self.bump();
        self.matrix.pop();
        self.index_depth -= 1;
        Ok(args)
    }

    fn primary(&mut self) -> VrResult<MExpr> {
        let line = self.line();
        match self.bump() {
            Tok::Num(v) => Ok(MExpr::new(MExprKind::Num(v), line)),
            Tok::Imag(v) => Ok(MExpr::new(MExprKind::Imag(v), line)),
            Tok::Str(s) => Ok(MExpr::new(MExprKind::Str(s), line)),
            Tok::Ident(s) if s == "end" && self.index_depth > 0 => Ok(MExpr::new(MExprKind::End, line)),
            Tok::Ident(s) if BLOCK_ENDS.contains(&s.as_str()) || matches!(s.as_str(), "if" | "for" | "parfor" | "while" | "switch" | "do" | "try") => {
                self.pos -= 1;
                Err(self.error(&format!("unexpected keyword `{s}` in an expression")))
            }
            Tok::Ident(s) => Ok(MExpr::new(MExprKind::Ident(s), line)),
            Tok::Op("(") => {
                self.matrix.push(false);
                let e = self.expr();
                self.matrix.pop();
                let e = e?;
                self.expect_op(")")?;
                // Parentheses make `(a)(1)` an expression, not a name.
                Ok(e)
            }
            Tok::Op("[") => self.matrix_literal(line, "]"),
            Tok::Op("{") => match self.matrix_literal(line, "}")?.kind {
                MExprKind::Matrix(rows) => Ok(MExpr::new(MExprKind::Cell(rows), line)),
                _ => unreachable!("a literal"),
            },
            Tok::Op("@") => {
                if self.is_op("(") {
                    // An anonymous function: skip its parameters and body.
                    self.bump();
                    self.arguments(")")?;
                    self.expr()?;
                    return Ok(MExpr::new(MExprKind::Unsupported("an anonymous function `@(...) ...`".into()), line));
                }
                let name = self.ident()?;
                Ok(MExpr::new(MExprKind::Handle(name), line))
            }
            Tok::Op(":") => Ok(MExpr::new(MExprKind::Colon, line)),
            other => {
                self.pos -= 1;
                Err(self.error(&format!("unexpected {}", describe(&other))))
            }
        }
    }

    /// `[ ... ]` (or `{ ... }`) after its opening bracket: rows separated by `;` or
    /// newlines, elements by `,` or whitespace.
    fn matrix_literal(&mut self, line: Line, close: &str) -> VrResult<MExpr> {
        self.matrix.push(true);
        let mut rows: Vec<Vec<MExpr>> = Vec::new();
        let mut row: Vec<MExpr> = Vec::new();
        loop {
            match self.peek() {
                Tok::Op(o) if *o == close => {
                    self.bump();
                    break;
                }
                Tok::Semi | Tok::Newline => {
                    self.bump();
                    if !row.is_empty() {
                        rows.push(std::mem::take(&mut row));
                    }
                }
                Tok::Comma => {
                    self.bump();
                }
                Tok::Eof => {
                    self.matrix.pop();
                    return Err(self.error(&format!("unterminated `{}`", if close == "]" { "[" } else { "{" })));
                }
                _ => {
                    let e = self.expr();
                    if e.is_err() {
                        self.matrix.pop();
                    }
                    row.push(e?);
                }
            }
        }
        if !row.is_empty() {
            rows.push(row);
        }
        self.matrix.pop();
        Ok(MExpr::new(MExprKind::Matrix(rows), line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Vec<Stmt> {
        parse_file(&format!("function f()\n{src}\nend\n")).unwrap().remove(0).body
    }

    fn expr_of(src: &str) -> MExpr {
        match body(&format!("x = {src};")).remove(0).kind {
            StmtKind::Assign { rhs, .. } => rhs,
            other => panic!("{other:?}"),
        }
    }

    fn show(e: &MExpr) -> String {
        match &e.kind {
            MExprKind::Num(v) => format!("{v}"),
            MExprKind::Imag(v) => format!("{v}i"),
            MExprKind::Str(s) => format!("'{s}'"),
            MExprKind::Ident(s) => s.clone(),
            MExprKind::Colon => ":".into(),
            MExprKind::End => "end".into(),
            MExprKind::Unary(o, a) => format!("({o}{})", show(a)),
            MExprKind::Binary(o, a, b) => format!("({} {o} {})", show(a), show(b)),
            MExprKind::Postfix(o, a) => format!("({}{o})", show(a)),
            MExprKind::Range { start, step, stop } => match step {
                Some(s) => format!("({}:{}:{})", show(start), show(s), show(stop)),
                None => format!("({}:{})", show(start), show(stop)),
            },
            MExprKind::Apply(t, args) => format!("{}({})", show(t), args.iter().map(show).collect::<Vec<_>>().join(", ")),
            MExprKind::Matrix(rows) | MExprKind::Cell(rows) => format!("[{}]", rows.iter().map(|r| r.iter().map(show).collect::<Vec<_>>().join(", ")).collect::<Vec<_>>().join("; ")),
            MExprKind::Handle(n) => format!("@{n}"),
            MExprKind::Unsupported(w) => format!("<{w}>"),
        }
    }

    #[test]
    fn precedence() {
        assert_eq!(show(&expr_of("-2^2")), "(-(2 ^ 2))");
        assert_eq!(show(&expr_of("2^-1")), "(2 ^ (-1))");
        assert_eq!(show(&expr_of("2^3^2")), "((2 ^ 3) ^ 2)");
        assert_eq!(show(&expr_of("a + b .* c'")), "(a + (b .* (c')))");
        assert_eq!(show(&expr_of("1:n-1")), "(1:(n - 1))");
        assert_eq!(show(&expr_of("a < b & c || d")), "(((a < b) & c) || d)");
        assert_eq!(show(&expr_of("0:0.5:2")), "(0:0.5:2)");
        assert_eq!(show(&expr_of("~a == b")), "((~a) == b)");
    }

    #[test]
    fn matrices() {
        assert_eq!(show(&expr_of("[1 -2]")), "[1, (-2)]");
        assert_eq!(show(&expr_of("[1 - 2]")), "[(1 - 2)]");
        assert_eq!(show(&expr_of("[a' b']")), "[(a'), (b')]");
        assert_eq!(show(&expr_of("[1, 2; 3 4]")), "[1, 2; 3, 4]");
        assert_eq!(show(&expr_of("[f(1) (2)]")), "[f(1), 2]");
        assert_eq!(show(&expr_of("[1 2\n 3 4]")), "[1, 2; 3, 4]");
        assert_eq!(show(&expr_of("[]")), "[]");
        assert_eq!(show(&expr_of("a(end, :)")), "a(end, :)");
        assert_eq!(show(&expr_of("a(end-1)")), "a((end - 1))");
    }

    #[test]
    fn statements() {
        let b = body("[m, ~] = size(a);\nif x, y = 1, elseif z\n y = 2; else y = 3; end\nfor i = 1:3; s += i; endfor\nparfor k = 1:n\n v(k) = k;\nend");
        assert!(matches!(&b[0].kind, StmtKind::Assign { lhs, bracketed: true, printed: false, .. } if lhs.len() == 2 && lhs[1] == Lhs::Tilde));
        assert!(matches!(&b[1].kind, StmtKind::If { clauses, els: Some(_) } if clauses.len() == 2));
        assert!(matches!(&b[2].kind, StmtKind::For { parallel: false, body, .. } if body.len() == 1));
        assert!(matches!(&b[3].kind, StmtKind::For { parallel: true, .. }));
    }

    #[test]
    fn files_with_and_without_end() {
        let fs = parse_file("function y = f(x)\n  y = g(x) + 1;\nfunction z = g(x)\n  z = 2 * x;\n").unwrap();
        assert_eq!(fs.len(), 2);
        assert_eq!(fs[1].name, "g");
        let fs = parse_file("% comment\nfunction [a, b] = f(x, y)\n a = x; b = y;\nend\n\nfunction g()\nend\n").unwrap();
        assert_eq!(fs[0].outputs, vec!["a", "b"]);
        assert_eq!(fs[0].params, vec!["x", "y"]);
        assert!(parse_file("x = 1;\n").is_err());
    }
}
