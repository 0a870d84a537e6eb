//! Affine forms of integer expressions: `c0 + c1*a1 + ... + cn*an` where each atom is
//! an `i64` variable or the extent `(dim A k)` of an array variable. Widening casts,
//! `i32` variables and `i64` temporaries with a single definition in the nest, and
//! narrowing `(cast i32 X)` (under a run-time range requirement) are seen through. Loop versioning
//! reads subscripts and loop bounds in this form and computes their extremes over a
//! loop nest before it runs.
//!
//! Besides exact forms, [`lower_bound`] and [`upper_bound`] find an affine form that is
//! never above (below) an expression: `(max a b)` is at least `a` and at least `b`, so
//! either is a lower bound, and the one with fewer loop indices is taken (for
//! `(max (- j r) 0)`, the constant 0). All arithmetic here is checked: a form whose
//! coefficients overflow is no form.

use crate::vrir::ast::{BinOp, Expr, LibFn, Literal, UnOp};
use crate::vrir::types::{ScalarType, Type};
use std::collections::BTreeMap;
use std::fmt;

/// What an atom of an affine form stands for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// An `i64` variable (a loop index, or a variable the loop nest never changes).
    Var(String),
    /// `(dim A k)`.
    Dim(String, u32),
}

/// How the caller's context sees a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarRole {
    /// The index of an enclosing loop of the nest.
    Index,
    /// An `i64` variable whose value is the same throughout the nest.
    Invariant,
    /// Anything else: the expression has no affine form.
    Other,
}

/// The questions affine conversion asks about names.
pub trait AffineContext {
    fn role(&self, var: &str) -> VarRole;
    /// Whether `(dim A k)` is the same throughout the nest (A never reassigned in it).
    fn dims_invariant(&self, array: &str) -> bool;
    /// The form of an integer variable whose only assignment in the nest certainly ran
    /// before this point with the operands it read still unchanged (forward
    /// substitution); None when there is no such assignment.
    fn definition(&self, _var: &str) -> Option<Affine> {
        None
    }
    /// Whether `var` is an `i32` variable (its value is a form only through
    /// [`AffineContext::definition`]; `i32` arithmetic is never affine here).
    fn is_i32(&self, _var: &str) -> bool {
        false
    }
    /// Called where `(cast i32 X)` is read as X's form: the context must make sure
    /// (at run time, before the nest) that `form` stays within `i32` wherever it is
    /// evaluated; false when it cannot.
    fn require_within_i32(&self, _form: &Affine) -> bool {
        false
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Affine {
    pub constant: i64,
    /// Non-zero coefficients only.
    pub terms: BTreeMap<Atom, i64>,
}

impl Affine {
    pub fn constant(c: i64) -> Affine {
        Affine {
            constant: c,
            terms: BTreeMap::new(),
        }
    }
    pub fn atom(a: Atom) -> Affine {
        Affine {
            constant: 0,
            terms: BTreeMap::from([(a, 1)]),
        }
    }
    pub fn add(&self, other: &Affine) -> Option<Affine> {
        let mut r = self.clone();
        r.constant = r.constant.checked_add(other.constant)?;
        for (a, c) in &other.terms {
            let e = r.terms.entry(a.clone()).or_insert(0);
            *e = e.checked_add(*c)?;
            if *e == 0 {
                r.terms.remove(a);
            }
        }
        Some(r)
    }
    pub fn scale(&self, k: i64) -> Option<Affine> {
        if k == 0 {
            return Some(Affine::default());
        }
        let mut r = Affine {
            constant: self.constant.checked_mul(k)?,
            terms: BTreeMap::new(),
        };
        for (a, c) in &self.terms {
            r.terms.insert(a.clone(), c.checked_mul(k)?);
        }
        Some(r)
    }
    pub fn sub(&self, other: &Affine) -> Option<Affine> {
        self.add(&other.scale(-1)?)
    }
    /// The coefficient of `a` (0 when absent).
    pub fn coeff(&self, a: &Atom) -> i64 {
        self.terms.get(a).copied().unwrap_or(0)
    }
    /// Replace atom `a` by the form `by`.
    pub fn substitute(&self, a: &Atom, by: &Affine) -> Option<Affine> {
        let c = self.coeff(a);
        if c == 0 {
            return Some(self.clone());
        }
        let mut rest = self.clone();
        rest.terms.remove(a);
        rest.add(&by.scale(c)?)
    }
    /// Sum of the absolute values of the coefficients (the constant excluded).
    pub fn coeff_magnitude(&self) -> Option<i64> {
        self.terms
            .values()
            .try_fold(0i64, |acc, c| acc.checked_add(c.checked_abs()?))
    }

    /// The form as a VRIR `i64` expression: constant first, then `c * atom` terms.
    pub fn to_expr(&self) -> Expr {
        let mut e: Option<Expr> = None;
        for (a, c) in &self.terms {
            let atom = match a {
                Atom::Var(v) => Expr::var(v.clone()),
                Atom::Dim(arr, k) => Expr::Dim {
                    arg: Box::new(Expr::var(arr.clone())),
                    axis: *k,
                },
            };
            let (op, mag) = if *c < 0 && e.is_some() {
                (BinOp::Sub, c.unsigned_abs())
            } else {
                (BinOp::Add, 0)
            };
            let term = if op == BinOp::Sub {
                if mag == 1 {
                    atom
                } else {
                    Expr::binary(BinOp::Mul, Expr::i64(mag as i64), atom)
                }
            } else if *c == 1 {
                atom
            } else {
                Expr::binary(BinOp::Mul, Expr::i64(*c), atom)
            };
            e = Some(match e {
                None => term,
                Some(prev) => Expr::binary(op, prev, term),
            });
        }
        match e {
            None => Expr::i64(self.constant),
            Some(e) if self.constant == 0 => e,
            Some(e) if self.constant < 0 => {
                Expr::binary(BinOp::Sub, e, Expr::i64(self.constant.wrapping_neg()))
            }
            Some(e) => Expr::binary(BinOp::Add, e, Expr::i64(self.constant)),
        }
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::vrir::text::print_expr(&self.to_expr()))
    }
}

/// The value of an integer expression of any integer type as an affine form: what
/// [`exact`] gives for `i64` expressions, and for `i32` ones an `i32` constant, an
/// `i32` variable with a [`AffineContext::definition`], or `(cast i32 X)` with X's
/// form when the context can require that form to stay within `i32` (then the cast
/// changes nothing). Subscripts and assignments to `i32` variables are read with it.
pub fn int_value(e: &Expr, cx: &dyn AffineContext) -> Option<Affine> {
    match e {
        Expr::Const {
            value: Literal::I32(v),
        } => Some(Affine::constant(*v as i64)),
        Expr::Var { name } if cx.is_i32(name) => cx.definition(name),
        Expr::Cast {
            to: Type::Scalar {
                elem: ScalarType::I32,
            },
            arg,
        } => {
            let form = exact(arg, cx)?;
            cx.require_within_i32(&form).then_some(form)
        }
        _ => exact(e, cx),
    }
}

/// The exact affine form of an `i64` expression `e`, if it has one in this context.
pub fn exact(e: &Expr, cx: &dyn AffineContext) -> Option<Affine> {
    match e {
        Expr::Const {
            value: Literal::I64(v),
        } => Some(Affine::constant(*v)),
        Expr::Var { name } if cx.is_i32(name) => None,
        Expr::Var { name } => match cx.definition(name) {
            Some(form) => Some(form),
            None => match cx.role(name) {
                VarRole::Index | VarRole::Invariant => Some(Affine::atom(Atom::Var(name.clone()))),
                VarRole::Other => None,
            },
        },
        // Widening an integer keeps its value (a float or bool argument has no form).
        Expr::Cast {
            to: Type::Scalar {
                elem: ScalarType::I64,
            },
            arg,
        } => int_value(arg, cx),
        Expr::Dim { arg, axis } => match &**arg {
            Expr::Var { name } if cx.dims_invariant(name) => {
                Some(Affine::atom(Atom::Dim(name.clone(), *axis)))
            }
            _ => None,
        },
        Expr::Unary { op: UnOp::Neg, arg } => exact(arg, cx)?.scale(-1),
        Expr::Binary { op, lhs, rhs } => match op {
            BinOp::Add => exact(lhs, cx)?.add(&exact(rhs, cx)?),
            BinOp::Sub => exact(lhs, cx)?.sub(&exact(rhs, cx)?),
            BinOp::Mul => {
                let (l, r) = (exact(lhs, cx)?, exact(rhs, cx)?);
                if l.terms.is_empty() {
                    r.scale(l.constant)
                } else if r.terms.is_empty() {
                    l.scale(r.constant)
                } else {
                    None
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// How many loop-index atoms a form mentions (fewer makes a better bound).
fn index_terms(a: &Affine, cx: &dyn AffineContext) -> usize {
    a.terms
        .keys()
        .filter(|t| matches!(t, Atom::Var(v) if cx.role(v) == VarRole::Index))
        .count()
}

fn better(a: Option<Affine>, b: Option<Affine>, cx: &dyn AffineContext) -> Option<Affine> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if index_terms(&b, cx) < index_terms(&a, cx) {
            b
        } else {
            a
        }),
        (a, b) => a.or(b),
    }
}

/// An affine form never above `e` (wherever `e` is evaluated in the context).
pub fn lower_bound(e: &Expr, cx: &dyn AffineContext) -> Option<Affine> {
    bound(e, cx, false)
}

/// An affine form never below `e`.
pub fn upper_bound(e: &Expr, cx: &dyn AffineContext) -> Option<Affine> {
    bound(e, cx, true)
}

fn bound(e: &Expr, cx: &dyn AffineContext, upper: bool) -> Option<Affine> {
    if let Some(a) = exact(e, cx) {
        return Some(a);
    }
    match e {
        Expr::Unary { op: UnOp::Neg, arg } => bound(arg, cx, !upper)?.scale(-1),
        Expr::Binary {
            op: BinOp::Add,
            lhs,
            rhs,
        } => bound(lhs, cx, upper)?.add(&bound(rhs, cx, upper)?),
        Expr::Binary {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => bound(lhs, cx, upper)?.sub(&bound(rhs, cx, !upper)?),
        Expr::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => {
            let (k, other) = match (exact(lhs, cx), exact(rhs, cx)) {
                (Some(k), _) if k.terms.is_empty() => (k.constant, rhs),
                (_, Some(k)) if k.terms.is_empty() => (k.constant, lhs),
                _ => return None,
            };
            bound(other, cx, if k >= 0 { upper } else { !upper })?.scale(k)
        }
        // max(a, b) >= a and >= b: either is a lower bound; likewise min for upper.
        Expr::Lib {
            func: LibFn::Max,
            args,
        } if !upper && args.len() == 2 => {
            better(bound(&args[0], cx, false), bound(&args[1], cx, false), cx)
        }
        Expr::Lib {
            func: LibFn::Min,
            args,
        } if upper && args.len() == 2 => {
            better(bound(&args[0], cx, true), bound(&args[1], cx, true), cx)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vrir::text::parse_module;

    struct Cx;
    impl AffineContext for Cx {
        fn role(&self, v: &str) -> VarRole {
            match v {
                "i" | "j" => VarRole::Index,
                "n" | "r" => VarRole::Invariant,
                _ => VarRole::Other,
            }
        }
        fn dims_invariant(&self, a: &str) -> bool {
            a == "a"
        }
    }

    fn expr(src: &str) -> Expr {
        let m = parse_module(&format!(
            "(module m :index-base 0 (function f () () (locals) (expr {src})))"
        ))
        .unwrap();
        match &m.functions[0].body[0].kind {
            crate::vrir::ast::StmtKind::Expr { expr } => expr.clone(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn sums_differences_and_constant_multiples_are_affine() {
        let a = exact(&expr("(- (* 2 (+ i 1)) (neg (dim a 1)))"), &Cx).unwrap();
        assert_eq!(a.constant, 2);
        assert_eq!(a.coeff(&Atom::Var("i".into())), 2);
        assert_eq!(a.coeff(&Atom::Dim("a".into(), 1)), 1);
        assert_eq!(a.to_string(), "(+ (+ (* 2 i) (dim a 1)) 2)");
        assert!(
            exact(&expr("(* i j)"), &Cx).is_none(),
            "a product of two indices is not affine"
        );
        assert!(
            exact(&expr("(+ i k)"), &Cx).is_none(),
            "k may change inside the nest"
        );
        assert!(
            exact(&expr("(dim b 0)"), &Cx).is_none(),
            "b may be reassigned"
        );
    }

    #[test]
    fn min_and_max_give_the_bound_with_fewer_loop_indices() {
        let lo = lower_bound(&expr("(max (- j r) 0)"), &Cx).unwrap();
        assert_eq!(lo, Affine::constant(0));
        let hi = upper_bound(&expr("(- (min (+ (+ j r) 1) n) 1)"), &Cx).unwrap();
        assert_eq!(hi.to_string(), "(- n 1)");
        assert!(upper_bound(&expr("(max i n)"), &Cx).is_none());
        assert!(lower_bound(&expr("(min i n)"), &Cx).is_none());
    }

    /// Cx plus an i32 copy `ji` of j, an i64 temporary `t` = i - 1, and a record of
    /// the narrowing requirements (refused for forms mentioning `n`).
    struct Copies(std::cell::RefCell<Vec<Affine>>);
    impl AffineContext for Copies {
        fn role(&self, v: &str) -> VarRole {
            Cx.role(v)
        }
        fn dims_invariant(&self, a: &str) -> bool {
            Cx.dims_invariant(a)
        }
        fn definition(&self, v: &str) -> Option<Affine> {
            match v {
                "ji" => Some(Affine::atom(Atom::Var("j".into()))),
                "t" => exact(&expr("(- i 1)"), &Cx),
                _ => None,
            }
        }
        fn is_i32(&self, v: &str) -> bool {
            v == "ji" || v == "k32"
        }
        fn require_within_i32(&self, form: &Affine) -> bool {
            self.0.borrow_mut().push(form.clone());
            form.coeff(&Atom::Var("n".into())) == 0
        }
    }

    #[test]
    fn widening_casts_definitions_and_narrowing_casts_are_seen_through() {
        let cx = Copies(Default::default());
        let f = exact(&expr("(+ (cast i64 ji) t)"), &cx).unwrap();
        assert_eq!(f.to_string(), "(- (+ i j) 1)");
        assert!(cx.0.borrow().is_empty());
        // (cast i32 t) is t only where t fits i32: the context is told.
        let g = int_value(&expr("(cast i32 t)"), &cx).unwrap();
        assert_eq!(g.to_string(), "(- i 1)");
        assert_eq!(cx.0.borrow().len(), 1);
        assert!(int_value(&expr("(cast i32 (+ n 1))"), &cx).is_none());
        assert_eq!(
            int_value(&expr("ji"), &cx),
            Some(Affine::atom(Atom::Var("j".into())))
        );
        // i32 arithmetic may wrap, an i32 without a definition has no form, and a
        // float cast is no integer.
        assert!(exact(&expr("(cast i64 (+ ji 1:i32))"), &cx).is_none());
        assert!(exact(&expr("(cast i64 k32)"), &cx).is_none());
        assert!(
            exact(&expr("ji"), &cx).is_none(),
            "an i32 is not an i64 form"
        );
        assert!(exact(&expr("(cast i64 (cast f64 i))"), &cx).is_none());
    }

    #[test]
    fn substitution_replaces_an_atom_by_a_form() {
        let f = exact(&expr("(+ (* 3 i) j)"), &Cx).unwrap();
        let by = exact(&expr("(- n 1)"), &Cx).unwrap();
        let g = f.substitute(&Atom::Var("i".into()), &by).unwrap();
        assert_eq!(g.to_string(), "(- (+ j (* 3 n)) 3)");
        assert_eq!(g.coeff_magnitude(), Some(4));
    }
}
