//! Multiple assignment: `a, b = b, a`, `a[i], a[j] = a[j], a[i]` and `q, r = f(x)` for a
//! function of the source that returns several values (Julia's tuples), and MATLAB's
//! `[q, ~, r] = f(x)` (HIR `MultiAssign`, a builtin such as `[m, k] = max(v)` included):
//! one lowering for both. Every value is evaluated into a temporary of its
//! own first, then the targets are assigned left to right, each as an ordinary
//! assignment (`Lowerer::assign`), so that a swap reads the old values, as the host does.

use super::hir::{Expr, ExprKind, Line};
use super::lower::{LResult, Lowered, Lowerer};
use crate::vrir::{LValue, Stmt, StmtKind};

/// The targets of an assignment: a tuple's items, or the one target.
pub fn targets(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Tuple(items) => items.iter().collect(),
        _ => vec![e],
    }
}

impl Lowerer<'_> {
    /// `t1, t2, ... = value` (Julia: `target` is an `ExprKind::Tuple`).
    pub(super) fn tuple_assign(&mut self, target: &Expr, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let targets: Vec<Option<&Expr>> = targets(target).into_iter().map(Some).collect();
        self.assign_several(&targets, value, true, line, out)
    }

    /// Several targets from one value: the items of a tuple value, or the results of a
    /// call (a function of the source, or a builtin through `Language::builtin_multi`);
    /// `None` drops that result (MATLAB's `~`). `destructures`: a function with one
    /// result gives a value the host would iterate (Julia's `a, b = f(x)` with `f`
    /// returning an array), which is not compiled.
    pub(super) fn assign_several(
        &mut self,
        targets: &[Option<&Expr>],
        value: &Expr,
        destructures: bool,
        line: Line,
        out: &mut Vec<Stmt>,
    ) -> LResult<()> {
        let n = targets.len();
        let values = match &value.kind {
            ExprKind::Tuple(items) => {
                if items.len() < n {
                    return Err(self.unsupported(
                        "multiple assignment",
                        line,
                        &format!("{n} targets but {} values (the host raises a BoundsError)", items.len()),
                    ));
                }
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    let v = self.expr(item)?;
                    values.push(self.in_temp(v));
                }
                values
            }
            ExprKind::Call { func, args } if self.is_user_function(func) => {
                let (call, types) = self.user_call(func, args, line)?;
                if types.len() < n || (destructures && types.len() < 2) {
                    return Err(self.unsupported(
                        &format!("multiple assignment from `{func}`"),
                        line,
                        &format!("{n} targets but the function returns {} value(s)", types.len()),
                    ));
                }
                let names: Vec<String> = types.iter().map(|t| self.temp(&t.vrir(self.layout()))).collect();
                self.emit(StmtKind::Assign { targets: names.iter().map(|n| LValue::Var { name: n.clone() }).collect(), value: call });
                names.into_iter().zip(types).map(|(n, t)| Lowered::new(crate::vrir::Expr::var(n), t)).collect()
            }
            ExprKind::Call { func, args } => {
                let lang = self.prog.lang;
                match lang.builtin_multi(self, func, args, n, line) {
                    Some(vs) => vs?,
                    None => {
                        return Err(self.unsupported(
                            &format!("call to `{func}` for several results"),
                            line,
                            "not a function of the source or a builtin with several results",
                        ))
                    }
                }
            }
            _ => {
                return Err(self.unsupported(
                    "multiple assignment",
                    line,
                    "the value must be a tuple (`a, b = x, y`) or a call of a function that returns several values",
                ))
            }
        };
        out.append(&mut self.pre);
        for (t, v) in targets.iter().zip(values) {
            let Some(t) = t else { continue };
            let bound = self.bind_value(v);
            let r = self.assign(t, &Expr::new(ExprKind::Var(bound.clone()), line), line, out);
            self.unbind(&bound);
            r?;
        }
        Ok(())
    }

    /// `v` in a temporary of its own (arrays by reference), so that later assignments
    /// cannot change what it holds.
    fn in_temp(&mut self, v: Lowered) -> Lowered {
        if matches!(v.expr, crate::vrir::Expr::Const { .. }) {
            return v;
        }
        let t = self.temp(&v.ty.vrir(self.layout()));
        self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: v.expr });
        Lowered::new(crate::vrir::Expr::var(t), v.ty)
    }
}
