//! Argument matching as R does it (R Language Definition, 4.3.2 "Argument matching"),
//! shared by calls of the program's functions and of the builtins a front end knows:
//!
//! 1. exact matching on names: a named argument binds the formal of that name (formals
//!    after `...` included);
//! 2. partial matching on names: a named argument left over binds the one formal before
//!    `...` not yet bound whose name it starts (two such formals: ambiguous);
//! 3. positional matching: unnamed arguments bind the formals still unbound, in order, up
//!    to `...`.
//!
//! Whatever is left goes to `...` when the formals have one, else it is an unused
//! argument. Errors carry R's own wording (`unused argument (c = 1)`, `formal argument
//! "x" matched by multiple actual arguments`, `argument 1 matches multiple formal
//! arguments`), so that a user reads what R would have told them.

use super::hir::{Arg, BinOp, Expr, ExprKind, UnOp};

/// The name R gives the formal that collects surplus arguments.
pub const DOTS: &str = "...";

/// The outcome of matching: for each formal the index of the argument bound to it, and
/// the arguments that went to `...` (in call order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    pub slots: Vec<Option<usize>>,
    pub dots: Vec<usize>,
}

impl Matched {
    /// The argument bound to formal `k`.
    pub fn get<'a>(&self, args: &'a [Arg], k: usize) -> Option<&'a Arg> {
        self.slots.get(k).copied().flatten().map(|i| &args[i])
    }
}

/// Why a call's arguments do not fit the formals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Arguments no formal takes (indices into the call's arguments).
    Unused(Vec<usize>),
    /// A formal bound twice (by exact or by partial names).
    Duplicate(String),
    /// The argument (index) whose name starts several formals, and those formals.
    Ambiguous(usize, Vec<String>),
}

/// Match `args` to `formals` (which may contain `...`).
pub fn match_args(formals: &[&str], args: &[Arg]) -> Result<Matched, Mismatch> {
    let dots_at = formals.iter().position(|f| *f == DOTS);
    let mut slots: Vec<Option<usize>> = vec![None; formals.len()];
    let mut used = vec![false; args.len()];
    // 1. Exact names.
    for (i, a) in args.iter().enumerate() {
        let Some(name) = a.name.as_deref() else {
            continue;
        };
        if let Some(k) = formals.iter().position(|f| *f == name && *f != DOTS) {
            if slots[k].is_some() {
                return Err(Mismatch::Duplicate(formals[k].to_string()));
            }
            slots[k] = Some(i);
            used[i] = true;
        }
    }
    // 2. Partial names, against the unbound formals before `...`.
    let partial_end = dots_at.unwrap_or(formals.len());
    let exact_bound: Vec<bool> = slots.iter().map(|s| s.is_some()).collect();
    for (i, a) in args.iter().enumerate() {
        let Some(name) = a.name.as_deref() else {
            continue;
        };
        if used[i] || name.is_empty() {
            continue;
        }
        let candidates: Vec<usize> = (0..partial_end)
            .filter(|&k| !exact_bound[k] && formals[k].starts_with(name))
            .collect();
        match candidates.as_slice() {
            [] => {}
            [k] => {
                if slots[*k].is_some() {
                    return Err(Mismatch::Duplicate(formals[*k].to_string()));
                }
                slots[*k] = Some(i);
                used[i] = true;
            }
            many => {
                return Err(Mismatch::Ambiguous(
                    i,
                    many.iter().map(|&k| formals[k].to_string()).collect(),
                ))
            }
        }
    }
    // 3. Positions, up to `...`.
    let open: Vec<usize> = (0..partial_end)
        .filter(|&k| slots[k].is_none() && formals[k] != DOTS)
        .collect();
    let mut free = open.into_iter();
    let mut dots = Vec::new();
    let mut unused = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if used[i] {
            continue;
        }
        if a.name.is_none() {
            if let Some(k) = free.next() {
                slots[k] = Some(i);
                continue;
            }
        }
        if dots_at.is_some() {
            dots.push(i);
        } else {
            unused.push(i);
        }
    }
    if !unused.is_empty() {
        return Err(Mismatch::Unused(unused));
    }
    Ok(Matched { slots, dots })
}

/// R's message for a mismatch (`unused arguments (4, y = 2)`, ...).
pub fn message(m: &Mismatch, args: &[Arg]) -> String {
    match m {
        Mismatch::Unused(ix) => {
            let shown: Vec<String> = ix
                .iter()
                .map(|&i| match &args[i].name {
                    Some(n) => format!("{n} = {}", deparse(&args[i].value)),
                    None => deparse(&args[i].value),
                })
                .collect();
            let noun = if ix.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            format!("unused {noun} ({})", shown.join(", "))
        }
        Mismatch::Duplicate(f) => {
            format!("formal argument \"{f}\" matched by multiple actual arguments")
        }
        Mismatch::Ambiguous(i, fs) => {
            let name = args[*i].name.as_deref().unwrap_or("");
            format!(
                "argument {} matches multiple formal arguments (`{name}` starts {})",
                i + 1,
                fs.iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        }
    }
}

/// An expression as R would print it in a message, for the shapes arguments usually
/// have; anything larger is abbreviated.
pub fn deparse(e: &Expr) -> String {
    fn go(e: &Expr, depth: u32) -> String {
        if depth > 6 {
            return "...".into();
        }
        let sub = |x: &Expr| go(x, depth + 1);
        match &e.kind {
            ExprKind::Double(v) if v.is_nan() => "NaN".into(),
            ExprKind::Double(v) if v.is_infinite() => if *v > 0.0 { "Inf" } else { "-Inf" }.into(),
            ExprKind::Double(v) => format!("{v}"),
            ExprKind::Int(v) => format!("{v}L"),
            ExprKind::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
            ExprKind::Imaginary(v) => format!("{v}i"),
            ExprKind::Missing(_) => "NA".into(),
            ExprKind::Null => "NULL".into(),
            ExprKind::Str(s) => format!("{s:?}"),
            ExprKind::Var(n) => n.clone(),
            ExprKind::Unary(op, a) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                };
                format!("{o}{}", sub(a))
            }
            ExprKind::Binary(op, a, b) => {
                let sep = if matches!(op, BinOp::Colon | BinOp::Pow) {
                    ""
                } else {
                    " "
                };
                format!("{}{sep}{}{sep}{}", sub(a), op.spelling(), sub(b))
            }
            ExprKind::Call { func, args } => {
                let shown: Vec<String> = args
                    .iter()
                    .map(|a| match &a.name {
                        Some(n) => format!("{n} = {}", sub(&a.value)),
                        None => sub(&a.value),
                    })
                    .collect();
                format!("{func}({})", shown.join(", "))
            }
            ExprKind::Index {
                target,
                indices,
                double,
            } => {
                let shown: Vec<String> = indices
                    .iter()
                    .map(|i| i.as_ref().map_or(String::new(), sub))
                    .collect();
                let (o, c) = if *double { ("[[", "]]") } else { ("[", "]") };
                format!("{}{o}{}{c}", sub(target), shown.join(", "))
            }
            ExprKind::Function(_) | ExprKind::LocalFunction { .. } => "function(...) ...".into(),
            _ => "...".into(),
        }
    }
    go(e, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(spec: &[(Option<&str>, f64)]) -> Vec<Arg> {
        spec.iter()
            .map(|(n, v)| Arg {
                name: n.map(|s| s.to_string()),
                value: Expr::new(ExprKind::Double(*v), 1),
            })
            .collect()
    }

    #[test]
    fn exact_then_partial_then_positional() {
        // g <- function(alpha, beta); g(b = 1, a = 5): partial names.
        let m = match_args(
            &["alpha", "beta"],
            &args(&[(Some("b"), 1.0), (Some("a"), 5.0)]),
        )
        .unwrap();
        assert_eq!(m.slots, vec![Some(1), Some(0)]);
        // complex(real = 1, imag = 2).
        let m = match_args(
            &["length.out", "real", "imaginary", "modulus", "argument"],
            &args(&[(Some("real"), 1.0), (Some("imag"), 2.0)]),
        )
        .unwrap();
        assert_eq!(m.slots, vec![None, Some(0), Some(1), None, None]);
        // Positional fill skips bound formals.
        let m = match_args(
            &["x", "y", "z"],
            &args(&[(None, 1.0), (Some("x"), 2.0), (None, 3.0)]),
        )
        .unwrap();
        assert_eq!(m.slots, vec![Some(1), Some(0), Some(2)]);
    }

    #[test]
    fn dots_take_the_rest_and_stop_partial_matching() {
        // sapply(X, FUN, ..., simplify, USE.NAMES): `simp` is not matched partially.
        let f = ["X", "FUN", DOTS, "simplify", "USE.NAMES"];
        let m = match_args(
            &f,
            &args(&[
                (None, 1.0),
                (None, 2.0),
                (None, 3.0),
                (Some("simp"), 4.0),
                (Some("simplify"), 5.0),
            ]),
        )
        .unwrap();
        assert_eq!(m.slots, vec![Some(0), Some(1), None, Some(4), None]);
        assert_eq!(m.dots, vec![2, 3]);
    }

    #[test]
    fn mismatches_read_as_r_says_them() {
        let a = args(&[(None, 1.0), (None, 2.0), (None, 3.0), (None, 4.0)]);
        let e = match_args(&["abc", "abd", "x"], &a).unwrap_err();
        assert_eq!(message(&e, &a), "unused argument (4)");
        let a = args(&[(Some("q"), 1.0)]);
        assert_eq!(
            message(&match_args(&["abc", "abd", "x"], &a).unwrap_err(), &a),
            "unused argument (q = 1)"
        );
        let a = args(&[(Some("x"), 1.0), (Some("x"), 2.0)]);
        assert_eq!(
            message(&match_args(&["abc", "abd", "x"], &a).unwrap_err(), &a),
            "formal argument \"x\" matched by multiple actual arguments"
        );
        let a = args(&[(Some("ab"), 1.0)]);
        assert!(
            message(&match_args(&["abc", "abd", "x"], &a).unwrap_err(), &a)
                .starts_with("argument 1 matches multiple formal arguments")
        );
        // g(al = 1, alpha = 2): alpha is bound exactly, so `al` has nothing left (R: unused).
        let a = args(&[(Some("al"), 1.0), (Some("alpha"), 2.0)]);
        assert_eq!(
            message(&match_args(&["alpha", "beta"], &a).unwrap_err(), &a),
            "unused argument (al = 1)"
        );
        let a = args(&[(None, 1.0), (None, 2.0), (None, 3.0)]);
        assert_eq!(
            message(&match_args(&["x"], &a).unwrap_err(), &a),
            "unused arguments (2, 3)"
        );
    }
}
