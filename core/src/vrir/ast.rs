//! The VRIR abstract syntax tree: modules, functions, statements, expressions.
//!
//! Expressions carry no type field: every type follows from the symbol table, the
//! constants' own types and explicit casts, and the verifier computes it
//! (`verify::expr_type`). The meaning of every node is defined in docs/vrir-semantics.md
//! and implemented by the reference interpreter.

use super::types::{ArrayType, Type};
use serde::{Deserialize, Serialize};

/// A compilation unit: functions that may call each other and the library.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Module {
    pub name: String,
    /// 0 (C, NumPy) or 1 (MATLAB, R, Julia): the base of every index in the module.
    pub index_base: u8,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// The host promises this array argument aliases no other argument.
    #[serde(default, skip_serializing_if = "is_false")]
    pub restrict: bool,
}

/// A local variable of the symbol table (parameters are declared by `params`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Local {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    /// Empty for a void function.
    pub results: Vec<Type>,
    pub locals: Vec<Local>,
    pub body: Vec<Stmt>,
    /// Source line of the function header, when a front end supplied one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Function {
    /// The declared type of a parameter or local.
    pub fn var_type(&self, name: &str) -> Option<&Type> {
        self.params
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.ty)
            .or_else(|| self.locals.iter().find(|l| l.name == name).map(|l| &l.ty))
    }
    pub fn func_type(&self) -> Type {
        Type::Func {
            params: self.params.iter().map(|p| p.ty.clone()).collect(),
            results: self.results.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    #[serde(flatten)]
    pub kind: StmtKind,
    /// Source line in the host program, when a front end supplied one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Stmt {
    pub fn new(kind: StmtKind) -> Stmt {
        Stmt { kind, line: None }
    }
}

/// A statement list; `on_gpu` marks it as an accelerated section (a hint).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Block {
    #[serde(default, skip_serializing_if = "is_false")]
    pub on_gpu: bool,
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stmt", rename_all = "snake_case")]
pub enum StmtKind {
    Block(Block),
    /// One target for an ordinary value, several for a call returning several values.
    Assign { targets: Vec<LValue>, value: Expr },
    If { cond: Expr, then: Block, #[serde(default, skip_serializing_if = "Option::is_none")] els: Option<Block> },
    /// Sequential loop over a domain (or range); one loop variable per dimension,
    /// the first varying slowest.
    For { vars: Vec<String>, domain: Expr, body: Block },
    /// Loop whose iterations may run in parallel and in any order.
    Parfor { vars: Vec<String>, domain: Expr, body: Block },
    While { cond: Expr, body: Block },
    Break,
    Continue,
    Return { values: Vec<Expr> },
    Expr { expr: Expr },
    /// Allocate an uninitialised array of the variable's declared type.
    Alloc { var: String, dims: Vec<Expr> },
    Free { var: String },
    RefIncr { var: String },
    RefDecr { var: String },
}

/// The left side of an assignment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "lvalue", rename_all = "snake_case")]
pub enum LValue {
    Var { name: String },
    /// Write into an array variable; indices as for a read.
    Index { array: String, indices: Vec<Expr>, #[serde(default)] flags: IndexFlags },
}

/// Per-node attributes of array reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexFlags {
    /// Negative indices count from the end (NumPy).
    #[serde(default, skip_serializing_if = "is_false")]
    pub negative: bool,
    /// Fewer indices than dimensions: the last index spans the remaining dimensions
    /// flattened (MATLAB). When false they are implicit full ranges (NumPy).
    #[serde(default, skip_serializing_if = "is_false")]
    pub flatten: bool,
    /// Bounds check this access.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub check: bool,
    /// A slice read shares the array's data instead of copying it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub view: bool,
}

impl Default for IndexFlags {
    fn default() -> Self {
        IndexFlags { negative: false, flatten: false, check: true, view: false }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Float division; on integers, division truncating toward zero (C).
    Div,
    /// Floor division (Python `//`, R `%/%`).
    IDiv,
    /// Floor modulo: the result has the sign of the divisor (Python `%`, R `%%`, MATLAB mod).
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// Logical and/or; short-circuit on scalars, element-wise on arrays.
    And,
    Or,
}

impl BinOp {
    pub const ALL: [BinOp; 14] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::IDiv,
        BinOp::Mod,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::And,
        BinOp::Or,
    ];
    /// The operator's symbol in the text form.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::IDiv => "idiv",
            BinOp::Mod => "mod",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }
    pub fn from_symbol(s: &str) -> Option<BinOp> {
        BinOp::ALL.iter().copied().find(|o| o.symbol() == s)
    }
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne)
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
}

/// Whole-array or one-axis reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    /// The sum divided by the number of elements, both in the accumulator's precision,
    /// rounded once (R's `colMeans`, and `mean` of integers).
    Mean,
    /// R's `mean` of doubles: the mean, then corrected by the mean of the residuals
    /// (with R's retry when the sum overflows); whole arrays only.
    MeanRefined,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 6] = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Mean,
        ReduceOp::MeanRefined,
    ];
    /// Text-form head: `sum`, `prod`, `amin`, `amax`, `mean`, `mean-refined`.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "amin",
            ReduceOp::Max => "amax",
            ReduceOp::Mean => "mean",
            ReduceOp::MeanRefined => "mean-refined",
        }
    }
    pub fn from_name(s: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.iter().copied().find(|o| o.name() == s)
    }
    /// The means: float elements only, and never split across threads.
    pub fn is_mean(self) -> bool {
        matches!(self, ReduceOp::Mean | ReduceOp::MeanRefined)
    }
}

/// Running sums and products of a vector (`cumsum`, `cumprod`): element k of the result
/// is the accumulation of elements 0..=k.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanOp {
    Sum,
    Prod,
}

impl ScanOp {
    pub const ALL: [ScanOp; 2] = [ScanOp::Sum, ScanOp::Prod];
    /// Text-form head: `cumsum`, `cumprod`.
    pub fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
        }
    }
    pub fn from_name(s: &str) -> Option<ScanOp> {
        ScanOp::ALL.iter().copied().find(|o| o.name() == s)
    }
}

/// The type a reduction or scan accumulates in, when it is not the element type.
/// `F80` is the x87 80-bit extended format (64-bit significand, 15-bit exponent) that
/// `long double` is on x86-64, where R accumulates `sum`, `mean`, `cumsum` and their
/// kin: each element is converted to it exactly, every step rounds to it, and the total
/// is rounded to the element type once at the end (docs/vrir-semantics.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accum {
    F80,
}

impl Accum {
    pub const ALL: [Accum; 1] = [Accum::F80];
    /// Name in the text form (`:acc f80`) and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Accum::F80 => "f80",
        }
    }
    pub fn from_name(s: &str) -> Option<Accum> {
        Accum::ALL.iter().copied().find(|a| a.name() == s)
    }
}

/// Library functions called by name. Math functions apply element-wise to arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LibFn {
    // one-argument math, element-wise
    Sqrt,
    Exp,
    Log,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    /// `exp(x) - 1` without cancellation (C's `expm1`), floats only.
    Expm1,
    Abs,
    Floor,
    Ceil,
    Round,
    Trunc,
    IsNan,
    IsInf,
    Real,
    Imag,
    Conj,
    // two-argument math, element-wise with scalar broadcasting
    Atan2,
    Pow,
    Min,
    Max,
    /// Truncated remainder: sign of the dividend (C `%`, MATLAB rem, Fortran MOD).
    Rem,
    /// Build a complex value from real and imaginary parts.
    Complex,
    // array operations
    Matmul,
    Transpose,
    /// A fresh copy of an array, of the same type.
    Copy,
    /// Total number of elements.
    Len,
    Ndims,
    // random numbers from the host's generator (docs/vrir-semantics.md, "Random numbers")
    /// A uniform draw on (0, 1), f64 (R's `unif_rand`).
    RandomUnif,
    /// A standard normal draw, f64 (R's `norm_rand`).
    RandomNorm,
    /// A standard exponential draw, f64 (R's `exp_rand`).
    RandomExp,
    /// A uniform integer-valued f64 in [0, dn) for an f64 `dn` (R's `R_unif_index`).
    RandomIndex,
}

impl LibFn {
    pub const ALL: [LibFn; 39] = [
        LibFn::Sqrt,
        LibFn::Exp,
        LibFn::Log,
        LibFn::Log10,
        LibFn::Sin,
        LibFn::Cos,
        LibFn::Tan,
        LibFn::Asin,
        LibFn::Acos,
        LibFn::Atan,
        LibFn::Sinh,
        LibFn::Cosh,
        LibFn::Tanh,
        LibFn::Expm1,
        LibFn::Abs,
        LibFn::Floor,
        LibFn::Ceil,
        LibFn::Round,
        LibFn::Trunc,
        LibFn::IsNan,
        LibFn::IsInf,
        LibFn::Real,
        LibFn::Imag,
        LibFn::Conj,
        LibFn::Atan2,
        LibFn::Pow,
        LibFn::Min,
        LibFn::Max,
        LibFn::Rem,
        LibFn::Complex,
        LibFn::Matmul,
        LibFn::Transpose,
        LibFn::Copy,
        LibFn::Len,
        LibFn::Ndims,
        LibFn::RandomUnif,
        LibFn::RandomNorm,
        LibFn::RandomExp,
        LibFn::RandomIndex,
    ];
    /// Name in the text form (and in host-facing messages).
    pub fn name(self) -> &'static str {
        match self {
            LibFn::Sqrt => "sqrt",
            LibFn::Exp => "exp",
            LibFn::Log => "log",
            LibFn::Log10 => "log10",
            LibFn::Sin => "sin",
            LibFn::Cos => "cos",
            LibFn::Tan => "tan",
            LibFn::Asin => "asin",
            LibFn::Acos => "acos",
            LibFn::Atan => "atan",
            LibFn::Sinh => "sinh",
            LibFn::Cosh => "cosh",
            LibFn::Tanh => "tanh",
            LibFn::Expm1 => "expm1",
            LibFn::Abs => "abs",
            LibFn::Floor => "floor",
            LibFn::Ceil => "ceil",
            LibFn::Round => "round",
            LibFn::Trunc => "trunc",
            LibFn::IsNan => "isnan",
            LibFn::IsInf => "isinf",
            LibFn::Real => "real",
            LibFn::Imag => "imag",
            LibFn::Conj => "conj",
            LibFn::Atan2 => "atan2",
            LibFn::Pow => "pow",
            LibFn::Min => "min",
            LibFn::Max => "max",
            LibFn::Rem => "rem",
            LibFn::Complex => "complex",
            LibFn::Matmul => "matmul",
            LibFn::Transpose => "transpose",
            LibFn::Copy => "copy",
            LibFn::Len => "len",
            LibFn::Ndims => "ndims",
            LibFn::RandomUnif => "random_unif",
            LibFn::RandomNorm => "random_norm",
            LibFn::RandomExp => "random_exp",
            LibFn::RandomIndex => "random_index",
        }
    }
    pub fn from_name(s: &str) -> Option<LibFn> {
        LibFn::ALL.iter().copied().find(|f| f.name() == s)
    }
    /// Number of arguments the function takes.
    pub fn arity(self) -> usize {
        match self {
            LibFn::Atan2
            | LibFn::Pow
            | LibFn::Min
            | LibFn::Max
            | LibFn::Rem
            | LibFn::Complex
            | LibFn::Matmul => 2,
            LibFn::RandomUnif | LibFn::RandomNorm | LibFn::RandomExp => 0,
            _ => 1,
        }
    }
    /// The draw this function makes from the host's random stream, if it is one: such
    /// calls have an effect (the stream advances) and stay in program order.
    pub fn random_draw(self) -> Option<crate::runtime::rng::Draw> {
        use crate::runtime::rng::Draw;
        match self {
            LibFn::RandomUnif => Some(Draw::Unif),
            LibFn::RandomNorm => Some(Draw::Norm),
            LibFn::RandomExp => Some(Draw::Exp),
            LibFn::RandomIndex => Some(Draw::Index),
            _ => None,
        }
    }
}

/// How an allocation initializes its elements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "init", rename_all = "snake_case")]
pub enum AllocInit {
    Zeros,
    Ones,
    /// Uninitialised: the interpreter fills zeros; compiled code may leave garbage.
    Empty,
    Fill { value: Box<Expr> },
}

/// Constant values. Each constant has its own scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "lowercase")]
pub enum Literal {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(#[serde(with = "json_float32")] f32),
    F64(#[serde(with = "json_float64")] f64),
    C64(#[serde(with = "json_complex32")] [f32; 2]),
    C128(#[serde(with = "json_complex64")] [f64; 2]),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "expr", rename_all = "snake_case")]
pub enum Expr {
    Const { value: Literal },
    Var { name: String },
    Unary { op: UnOp, arg: Box<Expr> },
    Binary { op: BinOp, lhs: Box<Expr>, rhs: Box<Expr> },
    /// Scalar conversion, element-wise conversion of an array, or a change of layout (copy).
    Cast { to: Type, arg: Box<Expr> },
    /// Call of a function of the same module.
    Call { func: String, args: Vec<Expr> },
    Lib { func: LibFn, args: Vec<Expr> },
    /// `axis` (0-based, static) reduces one dimension away; None reduces to a scalar.
    /// `acc`: the accumulator type when it is not the element type.
    Reduce {
        op: ReduceOp,
        arg: Box<Expr>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        acc: Option<Accum>,
    },
    /// Running sum or product of a vector, accumulated in `acc` (the element type when
    /// absent), each element rounded to the element type.
    Scan {
        op: ScanOp,
        arg: Box<Expr>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        acc: Option<Accum>,
    },
    Alloc { init: AllocInit, ty: ArrayType, dims: Vec<Expr> },
    /// Size of one dimension (0-based, static), as i64.
    Dim { arg: Box<Expr>, axis: u32 },
    /// A range; start/stop may be absent only when used as an index (the whole extent in
    /// the step's direction); step defaults to 1.
    Range {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start: Option<Box<Expr>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop: Option<Box<Expr>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<Box<Expr>>,
    },
    Domain { ranges: Vec<Expr> },
    Tuple { items: Vec<Expr> },
    TupleGet { arg: Box<Expr>, index: u32 },
    /// Apply a scalar module function element-wise over arrays (and broadcast scalars).
    Map { func: String, args: Vec<Expr> },
    /// Array read: element, slice, or gather, depending on the indices' types.
    Index { array: Box<Expr>, indices: Vec<Expr>, #[serde(default)] flags: IndexFlags },
    /// Atomically add `value` to an element; yields the old value. Only inside parfor.
    AtomicAdd { array: String, indices: Vec<Expr>, value: Box<Expr> },
    /// Atomically replace an element equal to `expected` by `new`; yields the old value.
    AtomicCas { array: String, indices: Vec<Expr>, expected: Box<Expr>, new: Box<Expr> },
}

impl Expr {
    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var { name: name.into() }
    }
    pub fn lit(value: Literal) -> Expr {
        Expr::Const { value }
    }
    pub fn i64(v: i64) -> Expr {
        Expr::Const { value: Literal::I64(v) }
    }
    pub fn f64(v: f64) -> Expr {
        Expr::Const { value: Literal::F64(v) }
    }
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn yes() -> bool {
    true
}

/// JSON has no NaN or infinities: non-finite floats travel as the strings
/// "nan", "inf" and "-inf"; finite ones as numbers that round-trip exactly.
mod json_float64 {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Num(f64),
        Str(String),
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_nan() {
            s.serialize_str("nan")
        } else if v.is_infinite() {
            s.serialize_str(if *v > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(*v)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Num(v) => Ok(v),
            Repr::Str(s) => match s.as_str() {
                "nan" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(D::Error::custom(format!("not a float: {other:?}"))),
            },
        }
    }
}

mod json_float32 {
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
        // Every f32 is exactly representable as f64, so this is lossless.
        super::json_float64::serialize(&(*v as f64), s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        super::json_float64::deserialize(d).map(|v| v as f32)
    }
}

mod json_complex64 {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    #[derive(Serialize, Deserialize)]
    struct C {
        #[serde(with = "super::json_float64")]
        re: f64,
        #[serde(with = "super::json_float64")]
        im: f64,
    }
    pub fn serialize<S: Serializer>(v: &[f64; 2], s: S) -> Result<S::Ok, S::Error> {
        C { re: v[0], im: v[1] }.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
        let c = C::deserialize(d)?;
        Ok([c.re, c.im])
    }
}

mod json_complex32 {
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &[f32; 2], s: S) -> Result<S::Ok, S::Error> {
        super::json_complex64::serialize(&[v[0] as f64, v[1] as f64], s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f32; 2], D::Error> {
        super::json_complex64::deserialize(d).map(|[re, im]| [re as f32, im as f32])
    }
}
