//! Types of expressions: the rules of docs/vrir-semantics.md, "Types of expressions" and
//! "Indexing". Errors are bare descriptions of what is wrong; the statement checker adds
//! where.

use std::collections::HashMap;

use super::{assignable, check_array_type, MAX_NESTING};
use crate::vrir::ast::{
    Accum, AllocInit, BinOp, Expr, Function, IndexFlags, LibFn, Literal, Module, ReduceOp, ScanOp,
    UnOp,
};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};

/// A description of what is wrong, without the location.
pub(super) type Check<T> = Result<T, String>;

/// Where an expression stands: how deep it is nested, whether it is inside a parfor body
/// (atomics are legal there only) and whether it is an index (a range may leave its
/// endpoints out only there).
#[derive(Clone, Copy, Debug)]
pub(super) struct Position {
    depth: usize,
    in_parfor: bool,
    is_index: bool,
    /// Where random draws are not allowed, named for the message: inside a parfor body
    /// or an on_gpu block (the host's generator is one serial stream).
    no_draws: Option<&'static str>,
}

impl Position {
    /// The top-level expression of a statement at nesting depth `depth`.
    pub(super) fn statement(
        depth: usize,
        in_parfor: bool,
        no_draws: Option<&'static str>,
    ) -> Position {
        Position {
            depth,
            in_parfor,
            is_index: false,
            no_draws,
        }
    }
    /// An expression of a verified function, wherever it may stand (see `expr_type`).
    pub(super) fn anywhere() -> Position {
        Position {
            depth: 0,
            in_parfor: true,
            is_index: true,
            no_draws: None,
        }
    }
    fn operand(self) -> Position {
        Position {
            depth: self.depth + 1,
            is_index: false,
            ..self
        }
    }
    fn as_index(self) -> Position {
        Position {
            depth: self.depth + 1,
            is_index: true,
            ..self
        }
    }
}

/// The sets of element types an operation accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elems {
    /// Everything but bool.
    Numeric,
    IntOrFloat,
    IntOrBool,
    Float,
    FloatOrComplex,
    Bool,
    Any,
}

impl Elems {
    fn admits(self, t: ScalarType) -> bool {
        match self {
            Elems::Numeric => t.is_numeric(),
            Elems::IntOrFloat => t.is_real(),
            Elems::IntOrBool => t.is_int() || t == ScalarType::Bool,
            Elems::Float => t.is_float(),
            Elems::FloatOrComplex => t.is_float() || t.is_complex(),
            Elems::Bool => t == ScalarType::Bool,
            Elems::Any => true,
        }
    }
    fn describe(self) -> &'static str {
        match self {
            Elems::Numeric => "numeric",
            Elems::IntOrFloat => "integer or float",
            Elems::IntOrBool => "integer or bool",
            Elems::Float => "float",
            Elems::FloatOrComplex => "float or complex",
            Elems::Bool => "bool",
            Elems::Any => "any",
        }
    }
    /// The description with its indefinite article: "a float", "an integer or float".
    fn with_article(self) -> String {
        let d = self.describe();
        let article = if d.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {d}")
    }
}

/// The element type of an element-wise result, from the operands' element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    Same,
    /// The real type of a complex type; real types stay as they are.
    RealPart,
    Bool,
    /// `complex(re, im)`: the complex type of two floats.
    ComplexOf,
}

impl Out {
    fn apply(self, t: ScalarType) -> ScalarType {
        match self {
            Out::Same => t,
            Out::RealPart => t.real_part(),
            Out::Bool => ScalarType::Bool,
            Out::ComplexOf if t == ScalarType::F32 => ScalarType::C64,
            Out::ComplexOf => ScalarType::C128,
        }
    }
}

/// The element types an element-wise library function accepts, and its result's.
fn elementwise_signature(func: LibFn) -> (Elems, Out) {
    match func {
        LibFn::Sqrt
        | LibFn::Exp
        | LibFn::Log
        | LibFn::Log10
        | LibFn::Sin
        | LibFn::Cos
        | LibFn::Tan
        | LibFn::Asin
        | LibFn::Acos
        | LibFn::Atan
        | LibFn::Sinh
        | LibFn::Cosh
        | LibFn::Tanh => (Elems::FloatOrComplex, Out::Same),
        LibFn::Abs | LibFn::Real | LibFn::Imag => (Elems::Numeric, Out::RealPart),
        LibFn::Conj | LibFn::Pow => (Elems::Numeric, Out::Same),
        LibFn::Floor | LibFn::Ceil | LibFn::Round | LibFn::Trunc => (Elems::IntOrFloat, Out::Same),
        LibFn::IsNan | LibFn::IsInf => (Elems::Numeric, Out::Bool),
        LibFn::Atan2 | LibFn::Expm1 => (Elems::Float, Out::Same),
        LibFn::Min | LibFn::Max | LibFn::Rem => (Elems::IntOrFloat, Out::Same),
        LibFn::Complex => (Elems::Float, Out::ComplexOf),
        // Array operations are not element-wise; `library` handles them before this.
        LibFn::Matmul | LibFn::Transpose | LibFn::Copy | LibFn::Len | LibFn::Ndims => {
            (Elems::Any, Out::Same)
        }
        // Random draws take and give f64 scalars; `library` handles them before this.
        LibFn::RandomUnif | LibFn::RandomNorm | LibFn::RandomExp | LibFn::RandomIndex => {
            (Elems::Float, Out::Same)
        }
    }
}

/// How one index selects positions, by its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IndexKind {
    /// An integer scalar: one position.
    Position,
    /// A range.
    Slice,
    /// A 1-D integer array.
    Gather,
    /// A 1-D bool array.
    Mask,
}

/// Types expressions in the scope of one function.
pub(super) struct ExprChecker<'a> {
    module: &'a Module,
    vars: HashMap<&'a str, &'a Type>,
}

impl<'a> ExprChecker<'a> {
    pub(super) fn new(module: &'a Module, function: &'a Function) -> ExprChecker<'a> {
        let mut vars = HashMap::new();
        // Parameters first: where a name is declared twice (rejected by the verifier), the
        // first declaration wins, as in `Function::var_type`.
        let declared = function
            .params
            .iter()
            .map(|p| (&p.name, &p.ty))
            .chain(function.locals.iter().map(|l| (&l.name, &l.ty)));
        for (name, ty) in declared {
            vars.entry(name.as_str()).or_insert(ty);
        }
        ExprChecker { module, vars }
    }

    /// The declared type of a variable.
    pub(super) fn var_type(&self, name: &str) -> Check<&'a Type> {
        self.vars
            .get(name)
            .copied()
            .ok_or_else(|| format!("undeclared variable {name}"))
    }

    /// The type of an expression; `void` for a call of a void function.
    ///
    /// This and the methods it dispatches to recurse once per level of nesting, so each
    /// case lives in a method of its own: a small frame here keeps deep expressions within
    /// the stack even in unoptimized builds.
    pub(super) fn type_of(&self, e: &Expr, pos: Position) -> Check<Type> {
        if pos.depth > MAX_NESTING {
            return Err(too_deep());
        }
        let inner = pos.operand();
        match e {
            Expr::Const { value } => Ok(Type::scalar(literal_type(value))),
            Expr::Var { name } => self.var_type(name).cloned(),
            Expr::Unary { op, arg } => self.unary(*op, arg, inner),
            Expr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, inner),
            Expr::Cast { to, arg } => self.cast(to, arg, inner),
            Expr::Call { func, args } => self.call(func, args, inner),
            Expr::Lib { func, args } => self.library(*func, args, inner),
            Expr::Reduce { op, arg, axis, acc } => self.reduce(*op, arg, *axis, *acc, inner),
            Expr::Scan { op, arg, acc } => self.scan(*op, arg, *acc, inner),
            Expr::Alloc { init, ty, dims } => self.alloc(init, ty, dims, inner),
            Expr::Dim { arg, axis } => self.dim(arg, *axis, inner),
            Expr::Range { start, stop, step } => {
                self.range(start.as_deref(), stop.as_deref(), step.as_deref(), pos)
            }
            Expr::Domain { ranges } => self.domain(ranges, inner),
            Expr::Tuple { items } => self.tuple(items, inner),
            Expr::TupleGet { arg, index } => self.tuple_get(arg, *index, inner),
            Expr::Map { func, args } => self.map(func, args, inner),
            Expr::Index {
                array,
                indices,
                flags,
            } => self.index(array, indices, *flags, inner),
            Expr::AtomicAdd {
                array,
                indices,
                value,
            } => self.atomic_add(array, indices, value, pos),
            Expr::AtomicCas {
                array,
                indices,
                expected,
                new,
            } => self.atomic_cas(array, indices, expected, new, pos),
        }
    }

    /// The type of an expression that must yield a value (anything but a void call).
    pub(super) fn value_type(&self, e: &Expr, pos: Position) -> Check<Type> {
        match self.type_of(e, pos)? {
            Type::Void => match e {
                Expr::Call { func, .. } => {
                    Err(format!("call of void function {func} used as a value"))
                }
                _ => Err("void expression used as a value".to_string()),
            },
            t => Ok(t),
        }
    }

    /// Checks that `e` is an `i32` or `i64` scalar; `what` names it in the message.
    pub(super) fn integer_scalar(&self, what: &str, e: &Expr, pos: Position) -> Check<()> {
        match self.value_type(e, pos)? {
            Type::Scalar { elem } if elem.is_int() => Ok(()),
            t => Err(format!("{what} must be an integer scalar, got {t}")),
        }
    }

    /// The type of what `(index A indices flags)` selects in an array of type `a`: the
    /// element type when every index (after filling) is a position, otherwise an array
    /// with one dimension per non-position index.
    pub(super) fn selection(
        &self,
        a: ArrayType,
        indices: &[Expr],
        flags: IndexFlags,
        pos: Position,
    ) -> Check<Type> {
        let given = indices.len() as u64;
        let rank = u64::from(a.ndims);
        if given == 0 {
            return Err(format!("indexing {a} needs at least one index"));
        }
        if given > rank {
            return Err(format!(
                "{given} indices for {a}, which has {rank} dimensions"
            ));
        }
        let mut selected_dims = 0u64;
        for (i, index) in indices.iter().enumerate() {
            let t = self.value_type(index, pos.as_index())?;
            let kind = index_kind(&t).ok_or_else(|| {
                format!("index {} must be an integer scalar, a range, or a 1-D integer or bool array, got {t}", i + 1)
            })?;
            if flags.view && matches!(kind, IndexKind::Gather | IndexKind::Mask) {
                return Err(format!(
                    "`:view` allows only scalar and range indices, index {} is {t}",
                    i + 1
                ));
            }
            if kind != IndexKind::Position {
                selected_dims += 1;
            }
        }
        let filled = if given < rank && !flags.flatten {
            rank - given
        } else {
            0
        };
        if flags.view && flags.flatten && given < rank {
            return Err(format!(
                "`:view` cannot be combined with `:flat` on fewer indices than dimensions ({given} for {a})"
            ));
        }
        let rank = selected_dims + filled;
        if rank == 0 {
            return Ok(Type::scalar(a.elem));
        }
        let layout = if flags.view {
            Layout::Strided
        } else {
            fresh_layout(a.layout)
        };
        // rank <= a.ndims, which is a u32.
        Ok(Type::array(a.elem, rank as u32, layout))
    }

    fn unary(&self, op: UnOp, arg: &Expr, pos: Position) -> Check<Type> {
        match op {
            UnOp::Neg => self.elementwise_unary("neg", Elems::Numeric, Out::Same, arg, pos),
            UnOp::Not => self.elementwise_unary("not", Elems::Bool, Out::Same, arg, pos),
        }
    }

    fn dim(&self, arg: &Expr, axis: u32, pos: Position) -> Check<Type> {
        let a = self.array_operand("dim", arg, pos)?;
        if axis >= a.ndims {
            return Err(format!("`dim` axis {axis} is out of range for {a}"));
        }
        Ok(Type::I64)
    }

    fn tuple(&self, items: &[Expr], pos: Position) -> Check<Type> {
        let items = items
            .iter()
            .map(|item| self.value_type(item, pos))
            .collect::<Check<Vec<_>>>()?;
        Ok(Type::Tuple { items })
    }

    fn tuple_get(&self, arg: &Expr, index: u32, pos: Position) -> Check<Type> {
        let t = self.value_type(arg, pos)?;
        let Type::Tuple { items } = &t else {
            return Err(format!("`tget` needs a tuple, got {t}"));
        };
        usize::try_from(index)
            .ok()
            .and_then(|i| items.get(i))
            .cloned()
            .ok_or_else(|| format!("`tget` index {index} is out of range for {t}"))
    }

    fn index(
        &self,
        array: &Expr,
        indices: &[Expr],
        flags: IndexFlags,
        pos: Position,
    ) -> Check<Type> {
        let a = self.array_operand("index", array, pos)?;
        self.selection(a, indices, flags, pos)
    }

    fn atomic_add(
        &self,
        array: &str,
        indices: &[Expr],
        value: &Expr,
        pos: Position,
    ) -> Check<Type> {
        let elem = self.atomic_target("atomic-add", Elems::IntOrFloat, array, indices, pos)?;
        self.expect_scalar("atomic-add value", elem, value, pos.operand())?;
        Ok(Type::scalar(elem))
    }

    fn atomic_cas(
        &self,
        array: &str,
        indices: &[Expr],
        expected: &Expr,
        new: &Expr,
        pos: Position,
    ) -> Check<Type> {
        let elem = self.atomic_target("atomic-cas", Elems::IntOrBool, array, indices, pos)?;
        self.expect_scalar("atomic-cas expected value", elem, expected, pos.operand())?;
        self.expect_scalar("atomic-cas new value", elem, new, pos.operand())?;
        Ok(Type::scalar(elem))
    }

    fn elementwise_unary(
        &self,
        name: &str,
        elems: Elems,
        out: Out,
        arg: &Expr,
        pos: Position,
    ) -> Check<Type> {
        let t = self.value_type(arg, pos)?;
        let (elem, shape) = elementwise_operand(name, &t)?;
        if !elems.admits(elem) {
            return Err(format!(
                "`{name}` needs {} operand, got {t}",
                elems.with_article()
            ));
        }
        Ok(result_of(out.apply(elem), shape))
    }

    fn elementwise_binary(
        &self,
        name: &str,
        elems: Elems,
        out: Out,
        lhs: &Expr,
        rhs: &Expr,
        pos: Position,
    ) -> Check<Type> {
        let a = self.value_type(lhs, pos)?;
        let b = self.value_type(rhs, pos)?;
        let (ea, sa) = elementwise_operand(name, &a)?;
        let (eb, sb) = elementwise_operand(name, &b)?;
        if ea != eb {
            return Err(format!(
                "`{name}` needs operands of one element type, got {a} and {b}"
            ));
        }
        if let (Some(x), Some(y)) = (sa, sb) {
            if x.ndims != y.ndims {
                return Err(format!(
                    "`{name}` needs arrays of one rank, got {a} and {b}"
                ));
            }
        }
        if !elems.admits(ea) {
            return Err(format!(
                "`{name}` needs {} operands, got {a} and {b}",
                elems.describe()
            ));
        }
        Ok(result_of(out.apply(ea), sa.or(sb)))
    }

    fn binary(&self, op: BinOp, lhs: &Expr, rhs: &Expr, pos: Position) -> Check<Type> {
        let (elems, out) = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => (Elems::Numeric, Out::Same),
            BinOp::IDiv | BinOp::Mod => (Elems::IntOrFloat, Out::Same),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => (Elems::IntOrFloat, Out::Bool),
            BinOp::Eq | BinOp::Ne => (Elems::Any, Out::Bool),
            BinOp::And | BinOp::Or => (Elems::Bool, Out::Same),
        };
        self.elementwise_binary(op.symbol(), elems, out, lhs, rhs, pos)
    }

    fn cast(&self, to: &Type, arg: &Expr, pos: Position) -> Check<Type> {
        let from = self.value_type(arg, pos)?;
        let (source, target) = match (&from, to) {
            (Type::Scalar { elem: s }, Type::Scalar { elem: t }) => (*s, *t),
            (Type::Array(a), Type::Array(b)) => {
                check_array_type(b)?;
                if a.ndims != b.ndims {
                    return Err(format!("cannot cast {from} to {to}: the ranks differ"));
                }
                (a.elem, b.elem)
            }
            _ => return Err(format!("cannot cast {from} to {to}")),
        };
        if source.is_complex() && !target.is_complex() {
            return Err(format!(
                "cannot cast {from} to {to}: complex to non-complex needs `real`"
            ));
        }
        Ok(to.clone())
    }

    fn call(&self, func: &str, args: &[Expr], pos: Position) -> Check<Type> {
        let callee = self
            .module
            .function(func)
            .ok_or_else(|| format!("call of unknown function {func}"))?;
        if let Some(place) = pos.no_draws {
            if let Some((g, d)) = self.draws_through(func) {
                return Err(format!(
                    "{func} draws from the host's random stream (`{}` in {g}), which is one serial stream: it cannot be called inside {place}",
                    d.name()
                ));
            }
        }
        if args.len() != callee.params.len() {
            return Err(format!(
                "{func} takes {} arguments, got {}",
                callee.params.len(),
                args.len()
            ));
        }
        for (i, (arg, param)) in args.iter().zip(&callee.params).enumerate() {
            let t = self.value_type(arg, pos)?;
            if !assignable(&t, &param.ty) {
                return Err(format!(
                    "argument {} of {func}: cannot pass {t} as {}: {}",
                    i + 1,
                    param.name,
                    param.ty
                ));
            }
        }
        Ok(match callee.results.as_slice() {
            [] => Type::Void,
            [one] => one.clone(),
            several => Type::Tuple {
                items: several.to_vec(),
            },
        })
    }

    fn library(&self, func: LibFn, args: &[Expr], pos: Position) -> Check<Type> {
        let name = func.name();
        if args.len() != func.arity() {
            return Err(format!(
                "`{name}` takes {} argument{}, got {}",
                func.arity(),
                if func.arity() == 1 { "" } else { "s" },
                args.len()
            ));
        }
        if func.random_draw().is_some() {
            return self.random_draw(func, args, pos);
        }
        match (func, args) {
            (LibFn::Matmul, [a, b]) => self.matmul(a, b, pos),
            (LibFn::Transpose, [a]) => {
                let a = self.array_operand(name, a, pos)?;
                if a.ndims > 2 {
                    return Err(format!("`transpose` needs a 1-D or 2-D array, got {a}"));
                }
                Ok(Type::array(a.elem, a.ndims, fresh_layout(a.layout)))
            }
            (LibFn::Copy, [a]) => self.array_operand(name, a, pos).map(Type::Array),
            (LibFn::Len | LibFn::Ndims, [a]) => self.array_operand(name, a, pos).map(|_| Type::I64),
            (_, [a]) => {
                let (elems, out) = elementwise_signature(func);
                self.elementwise_unary(name, elems, out, a, pos)
            }
            (_, [a, b]) => {
                let (elems, out) = elementwise_signature(func);
                self.elementwise_binary(name, elems, out, a, b, pos)
            }
            // The arity was checked above.
            _ => Err(format!(
                "`{name}` takes {} arguments, got {}",
                func.arity(),
                args.len()
            )),
        }
    }

    /// A draw from the host's random stream: an f64 scalar, from an f64 scalar `dn`
    /// for `random_index`; never where iterations or a device may run it out of order.
    fn random_draw(&self, func: LibFn, args: &[Expr], pos: Position) -> Check<Type> {
        if let Some(place) = pos.no_draws {
            return Err(format!(
                "`{}` draws from the host's random stream, which is one serial stream: it is not allowed inside {place}",
                func.name()
            ));
        }
        if let [dn] = args {
            let t = self.value_type(dn, pos.operand())?;
            if t != Type::F64 {
                return Err(format!("`{}` needs an f64 scalar, got {t}", func.name()));
            }
        }
        Ok(Type::F64)
    }

    /// The first draw `func` makes, directly or through the functions it calls or maps
    /// (None when it makes none), as `(function that draws, what it draws)`.
    fn draws_through(&self, func: &str) -> Option<(String, LibFn)> {
        super::random::first_draw(self.module, func)
    }

    fn matmul(&self, lhs: &Expr, rhs: &Expr, pos: Position) -> Check<Type> {
        let a = self.array_operand("matmul", lhs, pos)?;
        let b = self.array_operand("matmul", rhs, pos)?;
        if a.ndims > 2 || b.ndims > 2 {
            return Err(format!("`matmul` needs 1-D or 2-D arrays, got {a} and {b}"));
        }
        if a.elem != b.elem {
            return Err(format!(
                "`matmul` needs operands of one element type, got {a} and {b}"
            ));
        }
        if !a.elem.is_numeric() {
            return Err(format!("`matmul` needs numeric operands, got {a} and {b}"));
        }
        Ok(match (a.ndims, b.ndims) {
            (1, 1) => Type::scalar(a.elem),
            (2, 2) => Type::array(a.elem, 2, fresh_layout(a.layout)),
            (2, _) => Type::array(a.elem, 1, fresh_layout(a.layout)),
            _ => Type::array(a.elem, 1, fresh_layout(b.layout)),
        })
    }

    fn reduce(
        &self,
        op: ReduceOp,
        arg: &Expr,
        axis: Option<u32>,
        acc: Option<Accum>,
        pos: Position,
    ) -> Check<Type> {
        let name = op.name();
        let a = self.array_operand(name, arg, pos)?;
        let elems = match op {
            ReduceOp::Sum | ReduceOp::Prod => Elems::Numeric,
            ReduceOp::Min | ReduceOp::Max => Elems::IntOrFloat,
            ReduceOp::Mean | ReduceOp::MeanRefined => Elems::FloatOrComplex,
        };
        if !elems.admits(a.elem) {
            return Err(format!(
                "`{name}` needs {} array, got {a}",
                elems.with_article()
            ));
        }
        if let Some(acc) = acc {
            if matches!(op, ReduceOp::Min | ReduceOp::Max) {
                return Err(format!(
                    "`{name}` takes no accumulator type (`:acc {}`)",
                    acc.name()
                ));
            }
            check_accumulator(name, acc, a, true)?;
        }
        match axis {
            Some(_) if op == ReduceOp::MeanRefined => {
                Err(format!("`{name}` reduces a whole array: it takes no axis"))
            }
            None => Ok(Type::scalar(a.elem)),
            Some(k) if k >= a.ndims => Err(format!("`{name}` axis {k} is out of range for {a}")),
            Some(_) if a.ndims == 1 => Ok(Type::scalar(a.elem)),
            Some(_) => Ok(Type::array(a.elem, a.ndims - 1, fresh_layout(a.layout))),
        }
    }

    /// `(cumsum A)`, `(cumprod A)`: a numeric vector in, a fresh one of the same element
    /// type out.
    fn scan(&self, op: ScanOp, arg: &Expr, acc: Option<Accum>, pos: Position) -> Check<Type> {
        let name = op.name();
        let a = self.array_operand(name, arg, pos)?;
        if !a.elem.is_numeric() || a.ndims != 1 {
            return Err(format!("`{name}` needs a numeric vector (rank 1), got {a}"));
        }
        if let Some(acc) = acc {
            check_accumulator(name, acc, a, false)?;
        }
        Ok(Type::array(a.elem, 1, fresh_layout(a.layout)))
    }

    fn alloc(&self, init: &AllocInit, ty: &ArrayType, dims: &[Expr], pos: Position) -> Check<Type> {
        let name = match init {
            AllocInit::Zeros => "zeros",
            AllocInit::Ones => "ones",
            AllocInit::Empty => "empty",
            AllocInit::Fill { .. } => "fill",
        };
        check_array_type(ty)?;
        if dims.len() as u64 != u64::from(ty.ndims) {
            return Err(format!(
                "`{name}` of {ty} needs {} dims, got {}",
                ty.ndims,
                dims.len()
            ));
        }
        for (i, d) in dims.iter().enumerate() {
            self.integer_scalar(&format!("dim {} of `{name}`", i + 1), d, pos)?;
        }
        if let AllocInit::Fill { value } = init {
            self.expect_scalar("`fill` value", ty.elem, value, pos)?;
        }
        Ok(Type::Array(*ty))
    }

    /// A range's endpoints and step are integer scalars; only an index may leave the
    /// endpoints out.
    fn range(
        &self,
        start: Option<&Expr>,
        stop: Option<&Expr>,
        step: Option<&Expr>,
        pos: Position,
    ) -> Check<Type> {
        let inner = pos.operand();
        for (what, part) in [("start", start), ("stop", stop)] {
            match part {
                Some(e) => self.integer_scalar(&format!("range {what}"), e, inner)?,
                None if pos.is_index => {}
                None => {
                    return Err(format!(
                        "a range without a {what} is allowed only as an index"
                    ))
                }
            }
        }
        if let Some(e) = step {
            self.integer_scalar("range step", e, inner)?;
        }
        Ok(Type::Range)
    }

    fn domain(&self, ranges: &[Expr], pos: Position) -> Check<Type> {
        if ranges.is_empty() {
            return Err("a domain needs at least one range".to_string());
        }
        for (i, r) in ranges.iter().enumerate() {
            let t = self.value_type(r, pos)?;
            if t != Type::Range {
                return Err(format!("domain item {} must be a range, got {t}", i + 1));
            }
        }
        let ndims = u32::try_from(ranges.len())
            .map_err(|_| "a domain of more than 2^32 ranges".to_string())?;
        Ok(Type::Domain { ndims })
    }

    fn map(&self, func: &str, args: &[Expr], pos: Position) -> Check<Type> {
        let callee = self
            .module
            .function(func)
            .ok_or_else(|| format!("map of unknown function {func}"))?;
        if let Some((g, d)) = self.draws_through(func) {
            return Err(format!(
                "map function {func} draws from the host's random stream (`{}` in {g}): a map's elements have no order, so it cannot draw",
                d.name()
            ));
        }
        let result = match callee.results.as_slice() {
            [Type::Scalar { elem }] if callee.params.iter().all(|p| p.ty.as_scalar().is_some()) => {
                *elem
            }
            _ => {
                return Err(format!(
                    "map function {func} must take scalars and return one scalar, it is {}",
                    callee.func_type()
                ));
            }
        };
        if args.len() != callee.params.len() {
            return Err(format!(
                "map function {func} takes {} arguments, got {}",
                callee.params.len(),
                args.len()
            ));
        }
        let mut shape: Option<ArrayType> = None;
        for (i, (arg, param)) in args.iter().zip(&callee.params).enumerate() {
            let t = self.value_type(arg, pos)?;
            let wanted = param.ty.as_scalar();
            match &t {
                Type::Scalar { elem } if Some(*elem) == wanted => {}
                Type::Array(a) if Some(a.elem) == wanted => match shape {
                    Some(first) if first.ndims != a.ndims => {
                        return Err(format!(
                            "map arguments must be arrays of one rank, got {first} and {a}"
                        ));
                    }
                    Some(_) => {}
                    None => shape = Some(*a),
                },
                _ => {
                    return Err(format!(
                        "map argument {} must be {} or an array of it, got {t}",
                        i + 1,
                        param.ty
                    ))
                }
            }
        }
        let shape =
            shape.ok_or_else(|| format!("map of {func} needs at least one array argument"))?;
        Ok(result_of(result, Some(shape)))
    }

    /// The element type of an atomic's target `array[indices]`: a declared array of an
    /// admitted element type, one integer scalar index per dimension, inside a parfor.
    fn atomic_target(
        &self,
        name: &str,
        elems: Elems,
        array: &str,
        indices: &[Expr],
        pos: Position,
    ) -> Check<ScalarType> {
        if !pos.in_parfor {
            return Err(format!("`{name}` is allowed only inside a parfor body"));
        }
        let t = self.var_type(array)?;
        let a = t
            .as_array()
            .ok_or_else(|| format!("`{name}` needs an array variable, {array} is {t}"))?;
        if !elems.admits(a.elem) {
            return Err(format!(
                "`{name}` needs {} array, {array} is {a}",
                elems.with_article()
            ));
        }
        if indices.len() as u64 != u64::from(a.ndims) {
            return Err(format!(
                "`{name}` needs one index per dimension of {array}: {a}, got {}",
                indices.len()
            ));
        }
        for (i, index) in indices.iter().enumerate() {
            self.integer_scalar(&format!("`{name}` index {}", i + 1), index, pos.operand())?;
        }
        Ok(a.elem)
    }

    /// Checks that `e` is a scalar of exactly type `elem`.
    fn expect_scalar(&self, what: &str, elem: ScalarType, e: &Expr, pos: Position) -> Check<()> {
        match self.value_type(e, pos)? {
            Type::Scalar { elem: t } if t == elem => Ok(()),
            t => Err(format!("{what} must be {elem}, got {t}")),
        }
    }

    /// The array type of an operand that must be an array.
    fn array_operand(&self, name: &str, e: &Expr, pos: Position) -> Check<ArrayType> {
        let t = self.value_type(e, pos)?;
        t.as_array()
            .ok_or_else(|| format!("`{name}` needs an array, got {t}"))
    }
}

/// An accumulator type must hold every element exactly: `f80` accumulates `f64`, and
/// in reductions the parts of `c128` (R's complex `sum`, `prod`, `mean`).
fn check_accumulator(name: &str, acc: Accum, a: ArrayType, complex_ok: bool) -> Check<()> {
    let ok = a.elem == ScalarType::F64 || (complex_ok && a.elem == ScalarType::C128);
    match acc {
        Accum::F80 if ok => Ok(()),
        Accum::F80 => Err(format!(
            "`{name}` with accumulator type f80 needs an f64{} array, got {a}",
            if complex_ok { " or c128" } else { "" }
        )),
    }
}

#[cold]
fn too_deep() -> String {
    format!("statements and expressions nested more than {MAX_NESTING} deep")
}

/// The type of a constant.
pub(super) fn literal_type(l: &Literal) -> ScalarType {
    match l {
        Literal::Bool(_) => ScalarType::Bool,
        Literal::I32(_) => ScalarType::I32,
        Literal::I64(_) => ScalarType::I64,
        Literal::F32(_) => ScalarType::F32,
        Literal::F64(_) => ScalarType::F64,
        Literal::C64(_) => ScalarType::C64,
        Literal::C128(_) => ScalarType::C128,
    }
}

fn index_kind(t: &Type) -> Option<IndexKind> {
    match t {
        Type::Scalar { elem } if elem.is_int() => Some(IndexKind::Position),
        Type::Range => Some(IndexKind::Slice),
        Type::Array(a) if a.ndims == 1 && a.elem.is_int() => Some(IndexKind::Gather),
        Type::Array(a) if a.ndims == 1 && a.elem == ScalarType::Bool => Some(IndexKind::Mask),
        _ => None,
    }
}

/// An operand of an element-wise operation: its element type and, for an array, its type.
fn elementwise_operand(name: &str, t: &Type) -> Check<(ScalarType, Option<ArrayType>)> {
    match t {
        Type::Scalar { elem } => Ok((*elem, None)),
        Type::Array(a) => Ok((a.elem, Some(*a))),
        _ => Err(format!("`{name}` needs scalar or array operands, got {t}")),
    }
}

/// The type of an element-wise result: a scalar, or a new array shaped like `shape`.
fn result_of(elem: ScalarType, shape: Option<ArrayType>) -> Type {
    match shape {
        None => Type::scalar(elem),
        Some(a) => Type::array(elem, a.ndims, fresh_layout(a.layout)),
    }
}

/// The layout of a new array computed from one of layout `l`: strided arrays produce
/// row-major ones.
fn fresh_layout(l: Layout) -> Layout {
    match l {
        Layout::Strided => Layout::Row,
        other => other,
    }
}
