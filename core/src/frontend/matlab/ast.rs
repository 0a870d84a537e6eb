//! MATLAB's syntax tree, as the parser reads it. It stays close to the surface syntax
//! because two things cannot be decided while parsing: whether `a(i)` indexes a variable
//! or calls a function (MATLAB decides by whether `a` is a variable of the function),
//! and what `end` inside parentheses refers to. `resolve` settles both, with every
//! function's variables known, and produces the shared HIR.

use crate::frontend::hir::Line;

#[derive(Clone, Debug, PartialEq)]
pub struct MExpr {
    pub kind: MExprKind,
    pub line: Line,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MExprKind {
    Num(f64),
    /// A purely imaginary literal (`2i`): its imaginary part.
    Imag(f64),
    Str(String),
    Ident(String),
    /// A bare `:` among the arguments of `a(...)` (all of a dimension).
    Colon,
    /// `end` among the arguments of `a(...)`.
    End,
    /// Prefix `-`, `+`, `~`.
    Unary(&'static str, Box<MExpr>),
    /// Infix operators, spelled as MATLAB spells them (`.*`, `~=`, `&&`, ...).
    Binary(&'static str, Box<MExpr>, Box<MExpr>),
    /// Postfix `'` (complex conjugate transpose) and `.'` (transpose).
    Postfix(&'static str, Box<MExpr>),
    /// `start:stop` or `start:step:stop`.
    Range { start: Box<MExpr>, step: Option<Box<MExpr>>, stop: Box<MExpr> },
    /// `a(args)`: indexing or a call, decided by `resolve`.
    Apply(Box<MExpr>, Vec<MExpr>),
    /// `[a b; c d]`: rows of elements.
    Matrix(Vec<Vec<MExpr>>),
    /// `{a, b}`: a cell array (compiles only as a `case` label).
    Cell(Vec<Vec<MExpr>>),
    /// `@name`.
    Handle(String),
    /// Syntax that parses but does not compile (cell arrays, fields, anonymous
    /// functions): its name for the diagnostic.
    Unsupported(String),
}

impl MExpr {
    pub fn new(kind: MExprKind, line: Line) -> MExpr {
        MExpr { kind, line }
    }
}

/// The target of an assignment.
#[derive(Clone, Debug, PartialEq)]
pub enum Lhs {
    Var(String),
    /// `a(i, j) = v`.
    Index(String, Vec<MExpr>),
    /// `~` among several outputs: the value is dropped.
    Tilde,
    /// A target that does not compile (`s.f = v`, `c{i} = v`): its name.
    Unsupported(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub line: Line,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression statement; `printed` when no `;` ends it (MATLAB displays it).
    Expr { e: MExpr, printed: bool },
    /// `x = v`, `a(i) = v`, `[a, b] = f(x)` (several targets, `bracketed`).
    Assign { lhs: Vec<Lhs>, rhs: MExpr, printed: bool, bracketed: bool },
    If { clauses: Vec<(MExpr, Vec<Stmt>)>, els: Option<Vec<Stmt>> },
    For { var: String, range: MExpr, body: Vec<Stmt>, parallel: bool },
    While { cond: MExpr, body: Vec<Stmt> },
    /// Octave's `do ... until cond`.
    DoUntil { body: Vec<Stmt>, cond: MExpr },
    Switch { subject: MExpr, cases: Vec<(MExpr, Vec<Stmt>)>, otherwise: Option<Vec<Stmt>> },
    Break,
    Continue,
    Return,
    /// A statement that parses but does not compile (`global`, `try`, ...).
    Unsupported(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MFunction {
    pub name: String,
    pub params: Vec<String>,
    pub outputs: Vec<String>,
    pub body: Vec<Stmt>,
    pub line: Line,
}
