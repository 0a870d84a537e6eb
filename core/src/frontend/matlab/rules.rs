//! MATLAB's rule table for the shared engine: classes (double = f64, logical = bool,
//! int32 = i32, complex double = c128), operators (`ops`), indexing (`index`), the
//! library (`builtins`), ranges, conditions and the messages of run-time checks. What
//! MATLAB does that compiled code does not (broadcasting, complex results of real
//! functions, matrix division) becomes a run-time check whose error is `unsupported`,
//! so that the Octave adapter runs the function in Octave: never a different answer.
//! docs/frontend-matlab.md lists every decision.

use super::{builtins, index, ops};
use crate::frontend::hir::{Arg, BinOp, Expr, ExprKind, Line, UnOp};
use crate::frontend::lower::{decode_stop_message, LResult, Lowered, Lowerer, STOP_REASON};
use crate::frontend::rules::{ArrayLoop, Language, Marker, SeqParts};
use crate::frontend::types::Ty;
use crate::vrir::{self, Layout, LibFn, Literal, ReduceOp, ScalarType};

pub struct Matlab {
    /// `for c = M` over an array: true: one turn per column with `c = M(:, k)` (every
    /// shape of M, c an array); false: one turn per element with c a scalar, for M with
    /// one row only (any other is `unsupported` at run time). `compile_outputs` tries
    /// the first and, when the function does not compile so (the loop variable is used
    /// as a scalar), the second.
    pub loops_over_columns: bool,
    /// int64 values may occur (an argument is one, or the source names `int64`): every
    /// library call not written for them (`builtins::TAKES_INT64`) looks at its
    /// arguments' types first and refuses int64 ones, so that no builtin computes an
    /// int64 in double by accident.
    pub int64_guard: bool,
    /// Values of the integer classes held in a wider element type (int8, int16, uint8,
    /// uint16, uint32: `Ty::class`) may occur. Then every int32 or int64 value without a
    /// class is refused where it is used (operators, library calls, stores, results):
    /// MATLAB does not combine them with these classes, and a value whose class the
    /// engine lost on the way would otherwise compute as an int32 (saturating at the
    /// wrong bound). Library calls not written for the classes (`builtins::TAKES_CLASSES`)
    /// refuse classed arguments.
    pub classes: bool,
}

macro_rules! matlab_rules {
    ($($name:ident: $l:expr, $i:expr, $c:expr;)*) => {
        $(pub static $name: Matlab = Matlab { loops_over_columns: $l, int64_guard: $i, classes: $c };)*
    };
}

matlab_rules! {
    RULES: true, false, false;
    ROW_LOOP_RULES: false, false, false;
    INT64_RULES: true, true, false;
    INT64_ROW_LOOP_RULES: false, true, false;
    CLASS_RULES: true, false, true;
    CLASS_ROW_LOOP_RULES: false, false, true;
    CLASS_INT64_RULES: true, true, true;
    CLASS_INT64_ROW_LOOP_RULES: false, true, true;
}

/// The rule table for these choices.
pub fn rules_for(loops_over_columns: bool, int64_guard: bool, classes: bool) -> &'static Matlab {
    match (loops_over_columns, int64_guard, classes) {
        (true, false, false) => &RULES,
        (false, false, false) => &ROW_LOOP_RULES,
        (true, true, false) => &INT64_RULES,
        (false, true, false) => &INT64_ROW_LOOP_RULES,
        (true, false, true) => &CLASS_RULES,
        (false, false, true) => &CLASS_ROW_LOOP_RULES,
        (true, true, true) => &CLASS_INT64_RULES,
        (false, true, true) => &CLASS_INT64_ROW_LOOP_RULES,
    }
}

pub const LOGICAL: ScalarType = ScalarType::Bool;
pub const INT32: ScalarType = ScalarType::I32;
pub const INT64: ScalarType = ScalarType::I64;
pub const DOUBLE: ScalarType = ScalarType::F64;
pub const COMPLEX: ScalarType = ScalarType::C128;

pub fn i64c(v: i64) -> vrir::Expr {
    vrir::Expr::i64(v)
}

pub fn bin(op: vrir::BinOp, a: vrir::Expr, b: vrir::Expr) -> vrir::Expr {
    vrir::Expr::binary(op, a, b)
}

pub fn lib(func: LibFn, args: Vec<vrir::Expr>) -> vrir::Expr {
    vrir::Expr::Lib { func, args }
}

/// An array used as a condition: true when it is not empty and no element is zero
/// (MATLAB's `if`/`while`); NaN raises, as in Octave.
fn array_condition(lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
    let l = ops::to_logical(lw, a, line)?;
    let l = lw.hoist(l);
    let zeros = lw.cast(Lowered::new(vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(l.expr.clone()) }, l.ty), ScalarType::I64);
    let none_zero = bin(vrir::BinOp::Eq, vrir::Expr::Reduce { op: ReduceOp::Sum, arg: Box::new(zeros.expr), axis: None, acc: None }, i64c(0));
    Ok(bin(vrir::BinOp::And, bin(vrir::BinOp::Gt, ops::numel(&l.expr), i64c(0)), none_zero))
}

/// Are the arguments of `colon` a range with a literal start or step that has a
/// fraction? Such a range is doubles: a loop runs over its elements (the `colon`
/// builtin), not over integers.
pub fn fractional_range(args: &[Arg]) -> bool {
    let fraction = |a: &Arg| matches!(a.value.kind, ExprKind::Double(v) if v.fract() != 0.0)
        || matches!(&a.value.kind, ExprKind::Unary(UnOp::Neg, x) if matches!(x.kind, ExprKind::Double(v) if v.fract() != 0.0));
    match args {
        [a, _] => fraction(a),
        [a, s, _] => fraction(a) || fraction(s),
        _ => false,
    }
}

impl Matlab {
    /// With `int64_guard`: the refusal of library call `name` when it is not written for
    /// int64 values and one of its arguments is one.
    fn int64_refused(&self, lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<crate::frontend::lower::LErr> {
        if !self.int64_guard || builtins::TAKES_INT64.contains(&name) {
            return None;
        }
        for a in args {
            if matches!(a.value.kind, ExprKind::Str(_)) {
                continue;
            }
            match lw.probe_type(&a.value) {
                Ok(t) if t.elem == INT64 => return Some(lw.unsupported(&format!("`{name}`"), line, "of an int64 value (not compiled for int64)")),
                Err(crate::frontend::lower::LErr::NotYet) => return Some(crate::frontend::lower::LErr::NotYet),
                _ => {}
            }
        }
        None
    }
}

impl Matlab {
    /// With `classes`: the refusal of an int32 or int64 operand without a class.
    fn unclassed_int(&self, lw: &Lowerer, tys: &[Ty], what: &str, line: Line) -> Option<crate::frontend::lower::LErr> {
        if !self.classes {
            return None;
        }
        tys.iter().find(|t| t.class.is_none() && matches!(t.elem, INT32 | INT64)).map(|t| {
            lw.unsupported(what, line, &format!("an {} value in a function with int8, int16, uint8, uint16 or uint32 values (not compiled together)", ops::class_name(t.elem)))
        })
    }

    /// With `classes`: the refusal of library call `name` when an argument is an int32
    /// or int64 without a class, or has a class and `name` is not written for classes.
    fn class_refused(&self, lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<crate::frontend::lower::LErr> {
        // The front end's own helpers (`__vr_loopvar` of an integer loop counter, ...)
        // are not MATLAB's values.
        if !self.classes || name.starts_with("__vr_") {
            return None;
        }
        for a in args {
            if matches!(a.value.kind, ExprKind::Str(_)) {
                continue;
            }
            match lw.probe_type(&a.value) {
                Ok(t) if t.class.is_some() && !builtins::TAKES_CLASSES.contains(&name) => {
                    return Some(lw.unsupported(&format!("`{name}`"), line, &format!("of an {} value (not compiled for this class)", t.class.map(|c| c.name()).unwrap_or("?"))))
                }
                Ok(t) => {
                    if let Some(e) = self.unclassed_int(lw, &[t], &format!("`{name}`"), line) {
                        return Some(e);
                    }
                }
                Err(crate::frontend::lower::LErr::NotYet) => return Some(crate::frontend::lower::LErr::NotYet),
                _ => {}
            }
        }
        None
    }
}

impl Language for Matlab {
    fn name(&self) -> &'static str {
        "MATLAB"
    }
    fn index_base(&self) -> u8 {
        1
    }
    fn layout(&self) -> Layout {
        Layout::Col
    }
    fn vrir_name(&self, name: &str) -> String {
        if vrir::text::is_plain_name(name) {
            name.to_string()
        } else {
            let cleaned: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect();
            format!("m_{cleaned}")
        }
    }
    fn arguments_by_value(&self) -> bool {
        true
    }
    fn drops_unit_dims(&self) -> bool {
        false
    }
    fn marker(&self, name: &str) -> Option<Marker> {
        match name {
            super::resolve::RESULTS => Some(Marker::Results),
            super::resolve::GPU => Some(Marker::Gpu),
            super::resolve::PRANGE => Some(Marker::ParallelRange),
            "error" => Some(Marker::Stop),
            _ => None,
        }
    }

    fn literal(&self, lw: &mut Lowerer, e: &Expr) -> LResult<Lowered> {
        let s = |v: Literal, t: ScalarType| Ok(Lowered::new(vrir::Expr::lit(v), Ty::scalar(t)));
        match &e.kind {
            ExprKind::Double(v) => s(Literal::F64(*v), DOUBLE),
            ExprKind::Int(v) => s(Literal::F64(*v as f64), DOUBLE),
            ExprKind::Bool(v) => s(Literal::Bool(*v), LOGICAL),
            ExprKind::Imaginary(v) => s(Literal::C128([0.0, *v]), COMPLEX),
            _ => Err(lw.unsupported("literal", e.line, "not a MATLAB literal")),
        }
    }

    fn missing_as(&self, _lw: &mut Lowerer, _e: &Expr, _elem: ScalarType) -> Option<LResult<Lowered>> {
        None
    }

    fn unary(&self, lw: &mut Lowerer, op: UnOp, a: Lowered, line: Line) -> LResult<Lowered> {
        if let Some(e) = self.unclassed_int(lw, &[a.ty], "an operator", line) {
            return Err(e);
        }
        ops::unary(lw, op, a, line)
    }

    fn binary(&self, lw: &mut Lowerer, op: BinOp, a: Lowered, b: Lowered, line: Line) -> LResult<Lowered> {
        if let Some(e) = self.unclassed_int(lw, &[a.ty, b.ty], &format!("`{}`", ops::matlab_spelling(op)), line) {
            return Err(e);
        }
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow => ops::arith(lw, op, a, b, line),
            BinOp::MatMul => ops::mtimes(lw, a, b, line),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => ops::compare(lw, op, a, b, line),
            BinOp::And | BinOp::Or => ops::logical_op(lw, op, a, b, line),
            BinOp::Mod | BinOp::IDiv | BinOp::Colon | BinOp::AndAnd | BinOp::OrOr => Err(lw.unsupported(&format!("operator `{}`", op.spelling()), line, "not a MATLAB operator")),
        }
    }

    /// MATLAB functions compile whole (the front end cuts no sections): no call is
    /// screened as compilable on its own.
    fn compiles_call(&self, _name: &str) -> bool {
        false
    }

    /// `x(0)` is an index like any other in MATLAB, which the bounds check rejects.
    fn zero_index_selects_nothing(&self) -> bool {
        false
    }

    fn builtin(&self, lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> Option<LResult<Lowered>> {
        if let Some(e) = self.int64_refused(lw, name, args, line) {
            return Some(Err(e));
        }
        if let Some(e) = self.class_refused(lw, name, args, line) {
            return Some(Err(e));
        }
        builtins::call(lw, name, args, line)
    }

    fn seq(&self, lw: &mut Lowerer, e: &Expr) -> Option<LResult<SeqParts>> {
        let args = index::builtin_call(lw, e, "colon")?;
        if fractional_range(args) {
            return None;
        }
        if self.classes {
            // A range of integers is of their class (`int8(1):3`): not compiled as one.
            for a in args {
                match lw.probe_type(&a.value) {
                    Ok(t) if matches!(t.elem, INT32 | INT64) => return Some(Err(lw.unsupported("a range", e.line, "of integer values in a function with int8, int16, uint8, uint16 or uint32 values"))),
                    Err(crate::frontend::lower::LErr::NotYet) => return Some(Err(crate::frontend::lower::LErr::NotYet)),
                    _ => {}
                }
            }
        }
        // The loop variable is an integer counter (`resolve` reads it back as a double).
        Some(index::range_parts(lw, args, index::RANGE_NOT_INTEGER, e.line).map(|p| {
            let stop = p.stop();
            SeqParts { start: p.start, stop, step: p.step, elem: ScalarType::I64 }
        }))
    }

    fn condition(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        if a.ty.rank > 0 {
            return array_condition(lw, a, line);
        }
        Ok(ops::to_logical(lw, a, line)?.expr)
    }

    fn index_value(&self, lw: &mut Lowerer, a: Lowered, line: Line) -> LResult<vrir::Expr> {
        index::position(lw, a, line)
    }

    fn index_array(&self, lw: &mut Lowerer, _a: Lowered, line: Line) -> LResult<vrir::Expr> {
        Err(lw.unsupported("indexing", line, "internal: MATLAB indexing is the rule table's own"))
    }

    fn entry_check(&self, _lw: &mut Lowerer, _var: &str, _ty: Ty) {}

    fn is_exclusion(&self, _e: &Expr) -> bool {
        false
    }
    fn exclusion(&self, _lw: &mut Lowerer, _e: &Expr, _extent: vrir::Expr, _line: Line) -> Option<LResult<vrir::Expr>> {
        None
    }
    fn na_filled(&self, _lw: &mut Lowerer, _e: &Expr, _elem: Option<ScalarType>) -> Option<LResult<Lowered>> {
        None
    }
    fn is_null(&self, _e: &Expr) -> bool {
        false
    }
    fn is_empty_vector(&self, _e: &Expr) -> bool {
        false
    }
    fn appended<'e>(&self, _e: &'e Expr, _name: &str) -> Option<&'e [Arg]> {
        None
    }
    fn length_of<'e>(&self, _e: &'e Expr) -> Option<&'e str> {
        None
    }
    fn missing_value(&self, _elem: ScalarType) -> Option<Literal> {
        None
    }

    fn host_has_answer(&self, reason: &str) -> bool {
        // Octave gives a value where compiled code stops (broadcasting, complex results,
        // matrix division, growth it does not compile, a matrix reduced along its
        // columns, ...); where Octave raises an error too, so does compiled code.
        !matches!(
            reason,
            ops::NONCONFORMANT
                | ops::NAN_LOGICAL
                | index::INDEX_NOT_INTEGER
                | index::SCALAR_INDEX
                | index::INVALID_RESIZE
                | index::ASSIGN_NONCONFORMANT
                | builtins::DIM_NOT_INTEGER
                | builtins::CONCAT_MISMATCH
                | builtins::RESHAPE_COUNT
                | builtins::VECTOR_LENGTHS
        ) && !reason.starts_with(STOP_REASON)
    }

    fn error_message(&self, reason: &str, _counts: Option<(i64, i64)>) -> String {
        if let Some(message) = reason.strip_prefix(STOP_REASON).and_then(decode_stop_message) {
            return message;
        }
        match reason {
            ops::BROADCAST => "operands of different sizes that Octave broadcasts (automatic broadcasting does not compile; Octave runs the function)".into(),
            ops::NONCONFORMANT => "nonconformant arguments (the operands' sizes do not agree)".into(),
            ops::NAN_LOGICAL => "NaN cannot be converted to a logical value".into(),
            ops::COMPLEX_RESULT => "a real function whose result is complex here (a negative number's square root, logarithm or fractional power, ...): compiled code keeps the real type; Octave runs the function".into(),
            ops::MATRIX_OP => "a matrix operation compiled code leaves to Octave (`\\`, `/` or `^` of matrices, an int32 or int64 matrix product)".into(),
            index::INDEX_NOT_INTEGER => "subscripts must be either integers 1 to (2^63)-1 or logicals".into(),
            index::SCALAR_INDEX => "index out of bound; value out of bound 1 (the indexed value has one element)".into(),
            index::MASK_LENGTH => "a logical index whose length differs from the extent it indexes (Octave runs the function)".into(),
            index::INVALID_RESIZE => "Octave:invalid-resize: A(I) = X: X must have the same size as I (a matrix cannot grow by a linear index)".into(),
            index::GROWTH => "an assignment past the end of an array that compiled code does not grow (in a parfor, a 3-d array, through `:`); Octave runs the function".into(),
            index::ASSIGN_NONCONFORMANT => "=: nonconformant arguments (several values stored at one position)".into(),
            index::RANGE_NOT_INTEGER => "a range whose start or step is not a whole number used as a loop (Octave runs the function)".into(),
            index::RANGE_INVALID => "a range with NaN or too many elements".into(),
            builtins::DIM_NOT_INTEGER => "a dimension that is not a whole number (conversion to octave_idx_type value failed)".into(),
            builtins::CONCAT_MISMATCH => "vertical or horizontal dimensions mismatch in concatenation".into(),
            builtins::RESHAPE_COUNT => "reshape: can't reshape to a size with another number of elements".into(),
            builtins::VECTOR_LENGTHS => "the vectors' lengths do not agree".into(),
            builtins::REDUCE_MATRIX => "a reduction (sum, max, ...) of a matrix without a dimension: MATLAB's result is a row of column results, which compiled code types as a scalar; Octave runs the function".into(),
            builtins::EMPTY_REDUCTION => "a reduction of an empty array whose result is empty in MATLAB; Octave runs the function".into(),
            builtins::COLUMNS_LOOP => "a `for` loop over a matrix with several rows (MATLAB iterates over columns), whose variable the function uses as a scalar (compiled, it is a scalar when the loop runs over a row's elements); Octave runs the function".into(),
            builtins::EMPTY_LOOP => "a `for` loop that makes no turn, whose variable the function reads outside the loop (Octave assigns it the empty value; compiled code keeps a scalar there); Octave runs the function".into(),
            builtins::CONDITION_ARRAY => "`&&` or `||` with an operand of several elements; Octave runs the function".into(),
            other => format!("run-time check `{other}` failed"),
        }
    }

    fn elements_meet(&self, a: ScalarType, b: ScalarType) -> bool {
        a == b || !(a == INT64 || b == INT64) || matches!((a, b), (INT64, LOGICAL) | (LOGICAL, INT64))
    }

    fn array_loop(&self, lw: &mut Lowerer, seq: &Expr, array: &Lowered, counter: &str, line: Line) -> Option<LResult<ArrayLoop>> {
        let ExprKind::Call { func, args } = &seq.kind else { return None };
        if func != builtins::COLUMNS_SOURCE {
            return None;
        }
        let read_outside = matches!(args.get(1).map(|a| &a.value.kind), Some(ExprKind::Bool(true)));
        Some(Ok(builtins::columns_loop(lw, array, counter, read_outside, self.loops_over_columns, line)))
    }

    fn index_read(&self, lw: &mut Lowerer, target: &Expr, indices: &[Option<Expr>], line: Line) -> Option<LResult<Lowered>> {
        Some(index::read(lw, target, indices, line))
    }

    fn index_assign(&self, lw: &mut Lowerer, name: &str, indices: &[Option<Expr>], value: &Expr, line: Line) -> Option<LResult<()>> {
        Some(index::assign(lw, name, indices, value, line))
    }

    fn optional_arguments(&self) -> bool {
        true
    }

    fn scalars_grow(&self) -> bool {
        false
    }

    fn builtin_multi(&self, lw: &mut Lowerer, name: &str, args: &[Arg], nout: usize, line: Line) -> Option<LResult<Vec<Lowered>>> {
        if name != "size" {
            if let Some(e) = self.int64_refused(lw, name, args, line) {
                return Some(Err(e));
            }
        }
        if let Some(e) = self.class_refused(lw, name, args, line) {
            return Some(Err(e));
        }
        builtins::multi(lw, name, args, nout, line)
    }

    fn copy_array(&self, e: vrir::Expr, ty: vrir::Type) -> vrir::Expr {
        // An exact identity per element (x * 1.0 is x for every double, -0, Inf and NaN
        // included; int32 * 1 and logical & true likewise): a fresh array to the alias
        // analysis and an element-wise result `reuse` writes in place. (The analysis
        // takes a `cast` for a possible alias and `reuse` does not read `copy`; complex
        // arrays, where * 1 could turn -0 or Inf parts, keep `copy`.)
        let elem = match &ty {
            vrir::Type::Array(a) => a.elem,
            _ => return vrir::Expr::Lib { func: LibFn::Copy, args: vec![e] },
        };
        match elem {
            DOUBLE => bin(vrir::BinOp::Mul, e, vrir::Expr::f64(1.0)),
            INT32 => bin(vrir::BinOp::Mul, e, vrir::Expr::lit(Literal::I32(1))),
            LOGICAL => bin(vrir::BinOp::And, e, vrir::Expr::lit(Literal::Bool(true))),
            _ => vrir::Expr::Lib { func: LibFn::Copy, args: vec![e] },
        }
    }
}
