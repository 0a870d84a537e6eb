//! R expressions back to text as R's `deparse()` prints them, for the messages R builds
//! from source (`stopifnot(n > 0)` fails with "n > 0 is not TRUE"). Spacing and number
//! formatting follow R 4 (`a + b`, `a/b`, `x^2`, `1:n`, `a%%b`, `1e+05`, 15 significant
//! digits). The parser keeps no parentheses, so they are placed where precedence needs
//! them: a user's redundant parentheses (`(a * b) + c`, which R prints as written) are
//! not reproduced. None for anything this does not print (strings with escapes,
//! functions, blocks).

use crate::frontend::hir::{BinOp, Expr, ExprKind, MissingKind, UnOp};

/// R's binding power of a binary operator (higher binds tighter) and whether it groups
/// to the right.
fn power(op: BinOp) -> (u8, bool) {
    match op {
        BinOp::Or | BinOp::OrOr => (6, false),
        BinOp::And | BinOp::AndAnd => (7, false),
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => (9, false),
        BinOp::Add | BinOp::Sub => (10, false),
        BinOp::Mul | BinOp::Div => (11, false),
        BinOp::Mod | BinOp::IDiv | BinOp::MatMul => (12, false),
        BinOp::Colon => (13, false),
        BinOp::Pow => (15, true),
    }
}

const UNARY_MINUS: u8 = 14;
const NOT: u8 = 8;
const ATOM: u8 = 20;

fn binding(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, ..) => power(*op).0,
        ExprKind::Unary(UnOp::Not, _) => NOT,
        ExprKind::Unary(..) => UNARY_MINUS,
        _ => ATOM,
    }
}

/// `x` as R's `deparse()` writes a double (15 significant digits, fixed or scientific
/// notation, whichever is narrower; fixed on a tie).
pub fn number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let neg = usize::from(x < 0.0);
    let sci = format!("{:.14e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let nsig = digits.trim_end_matches('0').len().max(1);
    let rgt = (nsig as i32 - exp - 1).max(0) as usize;
    let left = if exp >= 0 { exp as usize + 1 } else { 1 };
    let fixed_width = neg + left + if rgt > 0 { rgt + 1 } else { 0 };
    let exp_digits = if exp.abs() >= 100 { 3 } else { 2 };
    let sci_width = neg + if nsig > 1 { nsig + 1 } else { nsig } + 2 + exp_digits;
    if fixed_width <= sci_width {
        format!("{x:.rgt$}")
    } else {
        let m = format!("{:.*e}", nsig - 1, x);
        let (m, e) = m.split_once('e').expect("`{:e}` has an exponent");
        let e: i32 = e.parse().expect("an integer exponent");
        format!("{m}e{}{:0width$}", if e < 0 { '-' } else { '+' }, e.abs(), width = exp_digits)
    }
}

fn child(e: &Expr, parens: bool) -> Option<String> {
    let s = deparse(e)?;
    Some(if parens { format!("({s})") } else { s })
}

/// `e` as R's `deparse()` prints it, or None.
pub fn deparse(e: &Expr) -> Option<String> {
    Some(match &e.kind {
        ExprKind::Double(v) => number(*v),
        ExprKind::Int(v) => format!("{v}L"),
        ExprKind::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        ExprKind::Imaginary(v) => format!("0+{}i", number(*v)),
        ExprKind::Missing(k) => match k {
            MissingKind::Logical => "NA",
            MissingKind::Integer => "NA_integer_",
            MissingKind::Real => "NA_real_",
            MissingKind::Complex => "NA_complex_",
        }
        .into(),
        ExprKind::Null => "NULL".into(),
        ExprKind::Str(s) if !s.contains(['"', '\\', '\n', '\t']) => format!("\"{s}\""),
        ExprKind::Var(n) if is_syntactic(n) => n.clone(),
        ExprKind::Unary(op, a) => {
            let (sym, p) = match op {
                UnOp::Neg => ("-", UNARY_MINUS),
                UnOp::Plus => ("+", UNARY_MINUS),
                UnOp::Not => ("!", NOT),
            };
            format!("{sym}{}", child(a, binding(a) < p)?)
        }
        ExprKind::Binary(op, a, b) => {
            let (p, right) = power(*op);
            let left = child(a, binding(a) < p || (binding(a) == p && right))?;
            // An operand that starts with a unary operator needs no parentheses on the
            // right (`2^-1`, `a - -b`), as R prints it.
            let unary_b = matches!(b.kind, ExprKind::Unary(..));
            let rhs = child(b, !unary_b && (binding(b) < p || (binding(b) == p && !right)))?;
            let sym = op.spelling();
            match op {
                BinOp::Div | BinOp::Pow | BinOp::Colon | BinOp::Mod | BinOp::IDiv => format!("{left}{sym}{rhs}"),
                _ => format!("{left} {sym} {rhs}"),
            }
        }
        ExprKind::Call { func, args } if is_syntactic(func) => {
            let mut items = Vec::new();
            for a in args {
                let v = deparse(&a.value)?;
                items.push(match &a.name {
                    Some(n) if is_syntactic(n) => format!("{n} = {v}"),
                    Some(_) => return None,
                    None => v,
                });
            }
            format!("{func}({})", items.join(", "))
        }
        ExprKind::Index { target, indices, double } => {
            let t = child(target, binding(target) < ATOM)?;
            let mut items = Vec::new();
            for ix in indices {
                items.push(match ix {
                    Some(i) => deparse(i)?,
                    None => String::new(),
                });
            }
            let (open, close) = if *double { ("[[", "]]") } else { ("[", "]") };
            format!("{t}{open}{}{close}", items.join(", "))
        }
        // `data$n` (a name R would backquote: None).
        ExprKind::Field { target, name } if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_') && name.starts_with(|c: char| c.is_ascii_alphabetic()) => {
            format!("{}${name}", child(target, binding(target) < ATOM)?)
        }
        _ => return None,
    })
}

/// A name R prints without backquotes.
fn is_syntactic(n: &str) -> bool {
    let mut chars = n.chars();
    let Some(first) = chars.next() else { return false };
    (first.is_ascii_alphabetic() || (first == '.' && !n[1..].starts_with(|c: char| c.is_ascii_digit())))
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::r::parser::parse_program;

    fn dep(src: &str) -> String {
        deparse(&parse_program(src).unwrap()[0]).unwrap()
    }

    #[test]
    fn prints_as_r_does() {
        // Each pair checked against R 4.2's deparse(quote(...)).
        for (src, r) in [
            ("a %/% b", "a%/%b"),
            ("a %*% b", "a %*% b"),
            ("-(1:2)", "-(1:2)"),
            ("!(a & b)", "!(a & b)"),
            ("1/3", "1/3"),
            ("a/(b*c)", "a/(b * c)"),
            ("2^-1", "2^-1"),
            ("-x^2", "-x^2"),
            ("(-x)^2", "(-x)^2"),
            ("a^b^c", "a^b^c"),
            ("(a^b)^c", "(a^b)^c"),
            ("a - (b - c)", "a - (b - c)"),
            ("a - -b", "a - -b"),
            ("f(a, b = 2)", "f(a, b = 2)"),
            ("x[i, ]", "x[i, ]"),
            ("x[, 1]", "x[, 1]"),
            ("x[[1]]", "x[[1]]"),
            ("a <= 1 || !b", "a <= 1 || !b"),
            ("m %% 2 == 0", "m%%2 == 0"),
            ("length(x) > 0L", "length(x) > 0L"),
            ("-2:2", "-2:2"),
            ("1:n - 1", "1:n - 1"),
        ] {
            assert_eq!(dep(src), r, "{src}");
        }
    }

    #[test]
    fn numbers_as_r_does() {
        for (x, r) in [
            (0.0015, "0.0015"),
            (3.14159, "3.14159"),
            (1e15, "1e+15"),
            (123456.0, "123456"),
            (0.0001, "1e-04"),
            (100.0, "100"),
            (1e5, "1e+05"),
            (123456.7, "123456.7"),
            (0.1234567890123456, "0.123456789012346"),
            (1e300, "1e+300"),
            (2.5e-10, "2.5e-10"),
            (33.333333333333336, "33.3333333333333"),
            (10000.0, "10000"),
            (0.5, "0.5"),
            (0.1, "0.1"),
        ] {
            assert_eq!(number(x), r, "{x}");
        }
    }
}
