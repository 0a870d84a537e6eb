//! Indexing a value that inference proved to have one element (a scalar): R has no
//! scalars, so `x[1]`, `x[[1]]`, `x[i]` and `x[-1]` on a length-one argument are what
//! R users write (`n <- args[1]`).
//!
//! Index 1 (or an empty subscript) is the value itself, at no cost. A scalar index known
//! only at run time is checked: anything but 1 raises the `growth::BEYOND` or `BELOW`
//! check, whose answer the host has (R: NA past the end, an empty vector for 0 or -1,
//! an error for `[[`), so the host runs the call. Any other subscript (a sequence, a
//! vector, an excluding or zero index) indexes the value as a vector of length one,
//! the general way.

use super::growth::vector_of_one;
use super::hir::{Expr, ExprKind, Line};
use super::lower::{LResult, Lowered, Lowerer};

/// A literal index 1 (R `x[1]`, `x[1L]`).
fn is_one_literal(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Double(v) if v == 1.0) || matches!(e.kind, ExprKind::Int(1))
}

impl Lowerer<'_> {
    /// `t[indices]` for a scalar `t` (named `name` in messages): `Ok(element)` when it
    /// is the value itself, `Err(vector)` when the general indexing must take over, on
    /// `t` as a vector of length one (hoisted).
    pub(super) fn index_scalar(&mut self, t: Lowered, name: &str, indices: &[Option<Expr>], line: Line) -> LResult<Result<Lowered, Lowered>> {
        if indices.len() != 1 {
            return Err(self.unsupported(
                &format!("indexing `{name}`, a single value,"),
                line,
                &format!("with {} subscripts (R: incorrect number of dimensions)", indices.len()),
            ));
        }
        let Some(e) = &indices[0] else { return Ok(Ok(t)) };
        if is_one_literal(e) {
            return Ok(Ok(t));
        }
        let Some(i) = self.scalar_subscript(e, line) else {
            let v = vector_of_one(t, self.layout());
            return Ok(Err(self.hoist(v)));
        };
        let i = i?;
        self.check_position(name, &i, vrir_i64(1));
        Ok(Ok(t))
    }
}

fn vrir_i64(v: i64) -> crate::vrir::Expr {
    crate::vrir::Expr::i64(v)
}
