//! The shared high-level IR of every front end: an untyped expression tree with source
//! lines, close to the surface syntax of R, MATLAB and Julia (all three are
//! expression languages with blocks, if, loops, indexing and calls). A parser produces
//! it; `infer` and `lower` read it. Language specifics (which names are builtins, index
//! base, numeric rules) live in the language's rule table, never here.

/// A source line (1-based) where a construct starts.
pub type Line = u32;

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub line: Line,
}

/// Binary operators, named by meaning; each front end maps its spelling onto them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    /// Floor modulo (R `%%`).
    Mod,
    /// Floor division (R `%/%`).
    IDiv,
    /// `a:b`, a sequence.
    Colon,
    MatMul,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// Element-wise and/or (R `&`, `|`).
    And,
    Or,
    /// Scalar short-circuit and/or (R `&&`, `||`).
    AndAnd,
    OrOr,
}

impl BinOp {
    /// The operator as R spells it, for diagnostics.
    pub fn spelling(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
            BinOp::Mod => "%%",
            BinOp::IDiv => "%/%",
            BinOp::Colon => ":",
            BinOp::MatMul => "%*%",
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
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
}

/// One argument of a call: `name = value` or positional.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<String>,
    pub value: Expr,
}

/// A formal parameter with its default expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub params: Vec<Param>,
    pub body: Box<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A double constant (R `2`, `2.5`, `Inf`, `NaN`).
    Double(f64),
    /// An integer constant (R `2L`).
    Int(i32),
    /// A logical constant.
    Bool(bool),
    /// A purely imaginary constant (R `2i`): its imaginary part.
    Imaginary(f64),
    /// A missing value of the given kind (R `NA`, `NA_integer_`, `NA_real_`, ...).
    Missing(MissingKind),
    Null,
    Str(String),
    Var(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A call of a function by name (anything else in call position is `Unsupported`).
    Call { func: String, args: Vec<Arg> },
    /// A call whose callee is not a plain name, kept for its diagnostic.
    CallExpr { callee: Box<Expr>, args: Vec<Arg> },
    /// `x[i, j]` (one `None` per empty position, `x[i, ]`) or `x[[i]]` (`double`).
    Index { target: Box<Expr>, indices: Vec<Option<Expr>>, double: bool },
    /// An element of a list by name (R `x$name`).
    Field { target: Box<Expr>, name: String },
    Function(FunctionDef),
    /// Where a function was defined inside another (`name <- function(...) ...`) and
    /// lifted out into the program function `lifted` (`frontend::lift`): a statement
    /// that does nothing at run time.
    LocalFunction { name: String, lifted: String },
    Block(Vec<Expr>),
    If { cond: Box<Expr>, then: Box<Expr>, els: Option<Box<Expr>> },
    For { var: String, seq: Box<Expr>, body: Box<Expr> },
    While { cond: Box<Expr>, body: Box<Expr> },
    Repeat(Box<Expr>),
    Break,
    Next,
    /// `target <- value` (also `=` and `->`).
    Assign { target: Box<Expr>, value: Box<Expr> },
    /// `[a, b] = f(x)` (MATLAB): each result of a call into its target, in order; `None`
    /// drops that result (`~`). The call gives at least as many results as targets.
    MultiAssign { targets: Vec<Option<Expr>>, value: Box<Expr> },
    /// A tuple of values (Julia `a, b`): the value of a multiple assignment (`a, b = b,
    /// a`) or its target list. `frontend::tuples` lowers it there; anywhere else it is a
    /// diagnostic.
    Tuple(Vec<Expr>),
    /// A construct the parser recognises but no front end compiles (`<<-`, `@`,
    /// formulas, ...): its name for the diagnostic.
    Unsupported(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingKind {
    Logical,
    Integer,
    Real,
    Complex,
}

impl Expr {
    pub fn new(kind: ExprKind, line: Line) -> Expr {
        Expr { kind, line }
    }
}
