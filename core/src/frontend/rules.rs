//! The per-language rule table: everything the shared engine (`infer`, `lower`) asks a
//! language. The engine knows blocks, loops, assignment, indexing, calls between
//! source functions and specialization; the language decides literals, operators and
//! their numeric semantics, conditions, sequences, builtins and entry checks. R's table
//! is `r::rules::R`.

use super::hir::{Arg, BinOp, Expr, Line, UnOp};
use super::lower::{LResult, Lowered, Lowerer};
use super::types::Ty;
use crate::vrir;
use crate::vrir::Layout;

/// A sequence the engine can loop over or index with without materializing it:
/// `start, start + step, ...` not passing `stop` (inclusive), all `i64`.
pub struct SeqParts {
    pub start: vrir::Expr,
    pub stop: vrir::Expr,
    pub step: vrir::Expr,
    /// The element type the language gives the sequence's values.
    pub elem: vrir::ScalarType,
}

/// Calls the engine itself handles, whatever the language spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// Leave the function with a value (R `return(x)`).
    Return,
    /// Its one argument is a statement list to place on the GPU (R `gpu({ ... })`).
    Gpu,
    /// Its argument is a loop count; a `for` over it is a parfor (R `prange(n)`).
    ParallelRange,
    /// Raise an error with the message its string arguments spell (R `stop("...")`).
    Stop,
    /// Leave the function with several values, one VRIR result each (R `.vr_results(a,
    /// b)`): no host function spells it; the engine's own callers (an outlined section's
    /// outputs) and the language's builtins (a list result) use it.
    Results,
    /// A library call run for its checks, whose value is nothing (R `stopifnot(...)`):
    /// the rule table's `builtin` lowers the checks, the engine drops its value.
    Check,
}

pub trait Language: Sync {
    /// The language's name in messages.
    fn name(&self) -> &'static str;
    fn index_base(&self) -> u8;
    /// The layout of every array (R, MATLAB, Julia: column-major).
    fn layout(&self) -> Layout;
    /// The VRIR name of a source variable or function.
    fn vrir_name(&self, name: &str) -> String;
    /// Arguments are values (R, MATLAB): an array argument written in the callee is
    /// copied first; a variable assigned from an array variable gets its own copy when
    /// either is written.
    fn arguments_by_value(&self) -> bool;
    fn marker(&self, name: &str) -> Option<Marker>;
    /// Does a slice read drop dimensions of extent 1 (R's `drop = TRUE`)? Ranks are
    /// static, so the engine raises `dimension_dropped` when such a read would keep a
    /// dimension the language drops.
    fn drops_unit_dims(&self) -> bool;
    /// Constants (numbers, logicals, missing values).
    fn literal(&self, lw: &mut Lowerer, e: &Expr) -> LResult<Lowered>;
    /// A missing-value literal whose type comes from where it stands (R's `NA` is
    /// logical, and an operator or an element assignment coerces it to the other
    /// operand's or the array's type): `e` lowered as a missing value of `elem`. None
    /// when `e` is not such a literal; an error when `elem` has no missing value.
    fn missing_as(&self, lw: &mut Lowerer, e: &Expr, elem: vrir::ScalarType) -> Option<LResult<Lowered>>;
    fn unary(&self, lw: &mut Lowerer, op: UnOp, a: Lowered, line: Line) -> LResult<Lowered>;
    /// Every binary operator except the short-circuit ones and sequences, which the
    /// engine handles through `condition` and `seq`.
    fn binary(&self, lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered>;
    /// A call of a library function; None when `name` is not one.
    fn builtin(&self, lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>>;
    /// Recognize a sequence expression (`a:b`, `seq_len(n)`, ...).
    fn seq(&self, lw: &mut Lowerer, e: &Expr) -> Option<LResult<SeqParts>>;
    /// A value used as an `if`/`while` condition or a short-circuit operand: a VRIR
    /// bool scalar, with the run-time checks the language needs.
    fn condition(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr>;
    /// A scalar used as an index: a VRIR integer scalar.
    fn index_value(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr>;
    /// An array used as an index: an integer array (gather) or logical (mask).
    fn index_array(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr>;
    /// Checks on a parameter at function entry (R: no integer NA).
    fn entry_check(&self, lw: &mut Lowerer, var: &str, ty: Ty);
    /// The message of a run-time error raised by `Lowerer::raise_if(reason)` (with the
    /// two counts of `Lowerer::raise_if_counts`, when it was raised that way).
    fn error_message(&self, reason: &str, counts: Option<(i64, i64)>) -> String;
    /// Is `e`, used as an index, an excluding one (R's `x[-i]`, `x[-(1:2)]`)?
    fn is_exclusion(&self, e: &Expr) -> bool;
    /// An excluding index `e` over a dimension of `extent` (an i64 expression): a VRIR
    /// index (a range or a bool mask) that selects the positions `e` does not name.
    /// None when `e` is not one.
    fn exclusion(&self, lw: &mut Lowerer, e: &Expr, extent: vrir::Expr, line: Line) -> Option<LResult<vrir::Expr>>;
    /// A constructor whose elements are missing values (R `matrix(nrow = n, ncol = m)`,
    /// `matrix(NA, n, m)`) assigned to a variable: lowered with the missing value of the
    /// variable's element type `elem` (None while inference does not know it yet: then
    /// only its type matters, of the narrowest element type). None when `e` is not one.
    fn na_filled(&self, lw: &mut Lowerer, e: &Expr, elem: Option<vrir::ScalarType>) -> Option<LResult<Lowered>>;
    /// Is `e` the language's empty value that a vector grows from by assignment and
    /// that is no vector itself (R: `NULL`, `c()`)?
    fn is_null(&self, e: &Expr) -> bool;
    /// Is `e` an empty vector or nothing (R: `numeric(0)`, `vector("double", 0)`,
    /// `integer()`, and `is_null`)? A variable that starts so and is written through an
    /// index grows (`growth`).
    fn is_empty_vector(&self, e: &Expr) -> bool;
    /// The parts of `e` when it appends to variable `name` (R: `c(name, parts...)`).
    fn appended<'e>(&self, e: &'e Expr, name: &str) -> Option<&'e [Arg]>;
    /// The variable whose length `e` is (R: `length(x)`).
    fn length_of<'e>(&self, e: &'e Expr) -> Option<&'e str>;
    /// The missing value of an element type that gaps of a grown vector hold (R: NA,
    /// which is NaN for doubles); None where compiled code has none.
    fn missing_value(&self, elem: vrir::ScalarType) -> Option<vrir::Literal>;
    /// Whether the host language defines an answer where this check fires (R: NA for
    /// an integer overflow). Such errors are `Unsupported` at run time, which tells the
    /// host adapter to run the original function in the host instead; the others are
    /// errors in the host too (`Runtime`).
    fn host_has_answer(&self, reason: &str) -> bool;
}
