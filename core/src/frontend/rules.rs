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

/// A `for` loop over the value of an array as the language defines it
/// (`Language::array_loop`): how many turns it makes and what the loop variable is at
/// each.
pub struct ArrayLoop {
    /// The number of turns, an i64 expression.
    pub turns: vrir::Expr,
    /// The loop variable's value at the turn whose 1-based number is the loop counter.
    pub value: vrir::Expr,
    pub ty: Ty,
    /// What the loop variable is assigned when the loop makes no turn (MATLAB: the
    /// empty array itself); None: it keeps its value.
    pub when_empty: Option<vrir::Expr>,
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
    /// A list of its arguments, named by their names (R `list(a = x, b = y)`).
    List,
    /// The names of a list (R `names(l)`): strings, which compiled code has only as a
    /// `for` loop's sequence, a loop over the list's elements by name
    /// (`frontend::lists`, `list_loop`).
    Names,
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
    /// Whether calls of `name` (neither a function of the source nor a marker) may
    /// compile: the section analysis (`sections`) leaves other calls to the host.
    fn compiles_call(&self, name: &str) -> bool;
    /// Whether a call of library function `name` runs a function argument over elements
    /// (R's `sapply`, `Reduce`, ...): compiled, it is a loop, which makes a statement
    /// worth a compiled section (`sections`).
    fn iterates(&self, _name: &str) -> bool {
        false
    }
    /// Whether `name` calls the function it appears in again (R's `Recall(...)`), where
    /// no function of the source has that name.
    fn is_recall(&self, _name: &str) -> bool {
        false
    }
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

    // ----- hooks where a language's rules differ from R's (defaults: R's) -----

    /// An indexing read `target(indices)` lowered the language's own way (MATLAB: every
    /// index keeps its dimension, linear indexing shapes, `end`); None: the engine's.
    fn index_read(&self, _lw: &mut Lowerer, _target: &Expr, _indices: &[Option<Expr>], _line: Line) -> Option<LResult<Lowered>> {
        None
    }
    /// An indexed assignment `name(indices) = value` lowered the language's own way
    /// (MATLAB: growth of any array by assignment); its statements go through
    /// `Lowerer::emit`. None: the engine's.
    fn index_assign(&self, _lw: &mut Lowerer, _name: &str, _indices: &[Option<Expr>], _value: &Expr, _line: Line) -> Option<LResult<()>> {
        None
    }
    /// May a call leave out arguments that have no default (MATLAB: `nargin` tells the
    /// function how many it got; reading one it did not get is an error)?
    fn optional_arguments(&self) -> bool {
        false
    }
    /// Does a scalar written through an index become a growing vector (R: a value of
    /// length one is a vector, `growth`)? Where it does not (MATLAB) the front end makes
    /// such variables arrays itself.
    fn scalars_grow(&self) -> bool {
        true
    }
    /// A builtin called for `nout` results (`[m, i] = max(x)`): one value each. None:
    /// `name` is no builtin with several results.
    fn builtin_multi(&self, _lw: &mut Lowerer, _name: &str, _args: &[Arg], _nout: usize, _line: Line) -> Option<LResult<Vec<Lowered>>> {
        None
    }
    /// The copy `y = x` makes of an array (value semantics): VRIR's `copy` by default.
    /// MATLAB writes it as an exact element-wise identity (`x * 1.0`), which the
    /// optimizer's `reuse` pass may write into `y`'s own buffer (no fresh array per loop
    /// turn).
    fn copy_array(&self, e: vrir::Expr, _ty: vrir::Type) -> vrir::Expr {
        vrir::Expr::Lib { func: vrir::LibFn::Copy, args: vec![e] }
    }
    /// Does a literal index 0 select nothing (R's `x[0]`)? Where it does not (Julia,
    /// MATLAB) it is an ordinary index, which the bounds check rejects.
    fn zero_index_selects_nothing(&self) -> bool {
        true
    }
    /// Is a value of length one a vector (R has no scalars), so that a scalar and a
    /// vector assigned to one variable make a vector? Where it is not (Julia, MATLAB) they
    /// do not meet.
    fn scalars_are_vectors(&self) -> bool {
        false
    }
    /// A `for` loop over `seq` (the source expression), an array whose value `array`
    /// (rank 1 or more) the engine evaluated once into a temporary before the loop:
    /// the language's own turns (MATLAB: one per column, the variable a column). None:
    /// the engine's loop over the elements in storage order (R, Julia).
    fn array_loop(&self, _lw: &mut Lowerer, _seq: &Expr, _array: &Lowered, _counter: &str, _line: Line) -> Option<LResult<ArrayLoop>> {
        None
    }
    /// May values of these element types share one variable (the wider type holding
    /// both)? MATLAB: an int64 variable holds no double (a double holds no int64 exactly).
    fn elements_meet(&self, _a: vrir::ScalarType, _b: vrir::ScalarType) -> bool {
        true
    }
    /// The type of a parallel loop's variable (`prange(n)`, `Threads.@threads for`):
    /// the language's integer (R: i32, Julia: i64).
    fn parallel_index_type(&self) -> vrir::ScalarType {
        vrir::ScalarType::I32
    }
    /// Does a store into an array convert the value to the array's element type
    /// (Julia: `convert`, with an InexactError where it is not exact), rather than
    /// widen the array (R's coercion)?
    fn stores_convert(&self) -> bool {
        false
    }
    /// The value stored into an array of `elem` when `stores_convert`.
    fn convert_stored(&self, lw: &mut Lowerer, v: Lowered, elem: vrir::ScalarType) -> Lowered {
        lw.cast(v, elem)
    }
}
