//! Statements and control flow. Errors leaving a statement are tagged with its source
//! line (the innermost statement that has one, within the function that failed).

use super::array_ops::new_array;
use super::eval::dimension;
use super::{describe, index, internal, Frame, Interp};
use crate::runtime::error::VrResult;
use crate::runtime::value::{RangeVal, Scalar, Value};
use crate::vrir::ast::{Block, Expr, LValue, Stmt, StmtKind};
use crate::vrir::types::{ScalarType, Type};

/// How a statement ended.
pub(crate) enum Flow {
    Normal,
    Break,
    Continue,
    Return(Vec<Value>),
}

impl<'m> Interp<'m> {
    pub(crate) fn exec_stmts(&mut self, fr: &mut Frame<'m>, stmts: &'m [Stmt]) -> VrResult<Flow> {
        for s in stmts {
            match self.exec_stmt(fr, s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_stmt(&mut self, fr: &mut Frame<'m>, s: &'m Stmt) -> VrResult<Flow> {
        self.check_stack().map_err(|e| e.with_line(s.line))?;
        self.exec_kind(fr, &s.kind).map_err(|e| {
            // An error that already left its function (function set) keeps the callee's line.
            if e.function.is_none() {
                e.with_line(s.line)
            } else {
                e
            }
        })
    }

    fn exec_block(&mut self, fr: &mut Frame<'m>, b: &'m Block) -> VrResult<Flow> {
        // `on_gpu` is a placement hint: a GPU section means what a block means.
        self.exec_stmts(fr, &b.stmts)
    }

    fn exec_kind(&mut self, fr: &mut Frame<'m>, kind: &'m StmtKind) -> VrResult<Flow> {
        match kind {
            StmtKind::Block(b) => self.exec_block(fr, b),
            StmtKind::Assign { targets, value } => {
                let v = self.eval(fr, value)?;
                match targets.as_slice() {
                    [t] => {
                        // `(mset (x) e)` of a one-item tuple into a non-tuple variable.
                        let v = match (v, t) {
                            (Value::Tuple(mut items), LValue::Var { name })
                                if items.len() == 1
                                    && !matches!(fr.var_type(name), Some(Type::Tuple { .. })) =>
                            {
                                items.pop().unwrap_or(Value::Void)
                            }
                            (v, _) => v,
                        };
                        self.assign(fr, t, v)?;
                    }
                    targets => match v {
                        Value::Tuple(items) if items.len() == targets.len() => {
                            for (t, v) in targets.iter().zip(items) {
                                self.assign(fr, t, v)?;
                            }
                        }
                        other => {
                            return Err(internal(format!(
                                "{} targets for a value of type {}",
                                targets.len(),
                                describe(&other)
                            )))
                        }
                    },
                }
                Ok(Flow::Normal)
            }
            StmtKind::If { cond, then, els } => {
                if self.eval_cond(fr, cond)? {
                    self.exec_block(fr, then)
                } else if let Some(els) = els {
                    self.exec_block(fr, els)
                } else {
                    Ok(Flow::Normal)
                }
            }
            // A parfor runs its iterations serially, in order: one of the orders allowed.
            StmtKind::For { vars, domain, body } | StmtKind::Parfor { vars, domain, body } => {
                self.exec_for(fr, vars, domain, body)
            }
            StmtKind::While { cond, body } => {
                while self.eval_cond(fr, cond)? {
                    match self.exec_block(fr, body)? {
                        Flow::Normal | Flow::Continue => {}
                        Flow::Break => break,
                        ret @ Flow::Return(_) => return Ok(ret),
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Return { values } => {
                let mut out = Vec::with_capacity(values.len());
                for v in values {
                    out.push(self.eval(fr, v)?);
                }
                Ok(Flow::Return(out))
            }
            StmtKind::Expr { expr } => {
                self.eval(fr, expr)?;
                Ok(Flow::Normal)
            }
            StmtKind::Alloc { var, dims } => {
                let ty = match fr.var_type(var) {
                    Some(Type::Array(at)) => *at,
                    other => return Err(internal(format!("alloc of `{var}` of type {other:?}"))),
                };
                let mut ds = Vec::with_capacity(dims.len());
                for d in dims {
                    let v = self.eval(fr, d)?;
                    ds.push(dimension(&v)?);
                }
                let a = new_array(ty, ds, Scalar::zero(ty.elem))?;
                fr.set(var, Value::Array(a))?;
                Ok(Flow::Normal)
            }
            StmtKind::Free { var } => {
                fr.clear(var)?;
                Ok(Flow::Normal)
            }
            // Hooks for reference-counting hosts: nothing observable happens.
            StmtKind::RefIncr { .. } | StmtKind::RefDecr { .. } => Ok(Flow::Normal),
        }
    }

    fn eval_cond(&mut self, fr: &mut Frame<'m>, cond: &'m Expr) -> VrResult<bool> {
        match self.eval(fr, cond)? {
            Value::Scalar(Scalar::Bool(b)) => Ok(b),
            other => Err(internal(format!("condition of type {}", describe(&other)))),
        }
    }

    fn assign(&mut self, fr: &mut Frame<'m>, target: &'m LValue, v: Value) -> VrResult<()> {
        match target {
            LValue::Var { name } => fr.set(name, v),
            LValue::Index {
                array,
                indices,
                flags,
            } => {
                let a = match fr.get(array)? {
                    Value::Array(a) => a.clone(),
                    other => {
                        return Err(internal(format!(
                            "indexed assignment into {}",
                            describe(other)
                        )))
                    }
                };
                let written = self.eval_indices(fr, indices)?;
                index::write(&a, &written, &self.index_ctx(Some(array), *flags), &v)
            }
        }
    }

    /// `for`/`parfor`: the domain is evaluated once; points in order, first variable
    /// slowest; each iteration assigns the loop variables afresh.
    fn exec_for(
        &mut self,
        fr: &mut Frame<'m>,
        vars: &'m [String],
        domain: &'m Expr,
        body: &'m Block,
    ) -> VrResult<Flow> {
        let ranges: Vec<RangeVal> = match self.eval(fr, domain)? {
            Value::Range(r) => vec![r],
            Value::Domain(rs) => rs,
            other => return Err(internal(format!("loop over {}", describe(&other)))),
        };
        if ranges.len() != vars.len() {
            return Err(internal(format!(
                "{} loop variables over a domain of {} ranges",
                vars.len(),
                ranges.len()
            )));
        }
        let lens: Vec<usize> = ranges.iter().map(RangeVal::len).collect();
        if lens.contains(&0) {
            return Ok(Flow::Normal);
        }
        let mut counter = vec![0usize; ranges.len()];
        loop {
            for ((name, r), &k) in vars.iter().zip(&ranges).zip(&counter) {
                let p = range_nth(r, k);
                let v = match fr.var_type(name) {
                    Some(Type::Scalar {
                        elem: ScalarType::I32,
                    }) => Scalar::I32(p as i32),
                    _ => Scalar::I64(p),
                };
                fr.set(name, Value::Scalar(v))?;
            }
            match self.exec_block(fr, body)? {
                Flow::Normal | Flow::Continue => {}
                Flow::Break => return Ok(Flow::Normal),
                ret @ Flow::Return(_) => return Ok(ret),
            }
            // Advance the odometer: the last variable fastest.
            let mut d = counter.len();
            loop {
                if d == 0 {
                    return Ok(Flow::Normal);
                }
                d -= 1;
                counter[d] += 1;
                if counter[d] < lens[d] {
                    break;
                }
                counter[d] = 0;
            }
        }
    }
}

/// The k-th value of a range (k < len, so the exact value lies between start and stop and
/// wrapping arithmetic computes it without overflow).
fn range_nth(r: &RangeVal, k: usize) -> i64 {
    r.start.wrapping_add((k as i64).wrapping_mul(r.step))
}
