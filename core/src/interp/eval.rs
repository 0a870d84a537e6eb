//! Expressions: each evaluates to a `Value`. Operands are evaluated left to right.

use super::array_ops::{self, elem_type, fresh_layout, from_logical, map1, map2, new_array};
use super::index::{self, IndexCtx, Written};
use super::{arith, describe, internal, Frame, Interp};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::runtime::value::{RangeVal, Scalar, Value};
use crate::vrir::ast::{AllocInit, BinOp, Expr, IndexFlags, LibFn, Literal};
use crate::vrir::types::{ScalarType, Type};
use num_complex::{Complex32, Complex64};

/// The scalar a constant denotes.
pub(crate) fn literal(l: &Literal) -> Scalar {
    match *l {
        Literal::Bool(b) => Scalar::Bool(b),
        Literal::I32(v) => Scalar::I32(v),
        Literal::I64(v) => Scalar::I64(v),
        Literal::F32(v) => Scalar::F32(v),
        Literal::F64(v) => Scalar::F64(v),
        Literal::C64([re, im]) => Scalar::C64(Complex32::new(re, im)),
        Literal::C128([re, im]) => Scalar::C128(Complex64::new(re, im)),
    }
}

/// The integer value of an `i32`/`i64` scalar.
pub(crate) fn int_value(v: &Value, what: &str) -> VrResult<i64> {
    match v {
        Value::Scalar(Scalar::I32(x)) => Ok(*x as i64),
        Value::Scalar(Scalar::I64(x)) => Ok(*x),
        other => Err(internal(format!(
            "{what} must be an integer scalar, got {}",
            describe(other)
        ))),
    }
}

/// A non-negative array dimension from its run-time value.
pub(crate) fn dimension(v: &Value) -> VrResult<usize> {
    let d = int_value(v, "an array dimension")?;
    usize::try_from(d).map_err(|_| VrError::runtime(format!("negative dimension {d}")))
}

impl<'m> Interp<'m> {
    pub(crate) fn eval(&mut self, fr: &mut Frame<'m>, e: &'m Expr) -> VrResult<Value> {
        self.check_stack()?;
        match e {
            Expr::Const { value } => Ok(Value::Scalar(literal(value))),
            Expr::Var { name } => fr.get(name).cloned(),
            Expr::Unary { op, arg } => {
                let v = self.eval(fr, arg)?;
                let t = elem_type(&v)?;
                map1(&v, t, |x| arith::unop(*op, x))
            }
            Expr::Binary { op, lhs, rhs } => self.eval_binary(fr, *op, lhs, rhs),
            Expr::Cast { to, arg } => {
                let v = self.eval(fr, arg)?;
                match (to, &v) {
                    (Type::Scalar { elem }, Value::Scalar(s)) => {
                        Ok(Value::Scalar(arith::cast(*s, *elem)?))
                    }
                    (Type::Array(at), Value::Array(a)) => {
                        Ok(Value::Array(array_ops::cast_array(a, *at)?))
                    }
                    _ => Err(internal(format!("cast of {} to {to}", describe(&v)))),
                }
            }
            Expr::Call { func, args } => {
                let f = self
                    .module
                    .function(func)
                    .ok_or_else(|| internal(format!("call of unknown function `{func}`")))?;
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(fr, a)?);
                }
                let mut out = self.call_function(f, vals)?;
                Ok(match out.len() {
                    0 => Value::Void,
                    1 => out.pop().unwrap_or(Value::Void),
                    _ => Value::Tuple(out),
                })
            }
            Expr::Lib { func, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(fr, a)?);
                }
                library(*func, &vals)
            }
            Expr::Reduce { op, arg, axis, acc } => {
                let v = self.eval(fr, arg)?;
                array_ops::reduce(*op, &v, *axis, *acc)
            }
            Expr::Scan { op, arg, acc } => {
                let v = self.eval(fr, arg)?;
                array_ops::scan(*op, &v, *acc)
            }
            Expr::Alloc { init, ty, dims } => {
                let fill = match init {
                    AllocInit::Zeros | AllocInit::Empty => Scalar::zero(ty.elem),
                    AllocInit::Ones => Scalar::one(ty.elem),
                    AllocInit::Fill { value } => match self.eval(fr, value)? {
                        Value::Scalar(s) => s,
                        other => return Err(internal(format!("fill value {}", describe(&other)))),
                    },
                };
                let mut ds = Vec::with_capacity(dims.len());
                for d in dims {
                    let v = self.eval(fr, d)?;
                    ds.push(dimension(&v)?);
                }
                Ok(Value::Array(new_array(*ty, ds, fill)?))
            }
            Expr::Dim { arg, axis } => {
                let v = self.eval(fr, arg)?;
                let a = array_ops::as_array(&v, "dim")?;
                let d = a
                    .dims
                    .get(*axis as usize)
                    .ok_or_else(|| internal(format!("dim {axis} of {}", a.ty)))?;
                Ok(Value::Scalar(Scalar::I64(*d as i64)))
            }
            Expr::Range { start, stop, step } => {
                let (Some(start), Some(stop)) = (start, stop) else {
                    return Err(internal("a range without start or stop outside an index"));
                };
                let start = int_value(&self.eval(fr, start)?, "a range start")?;
                let stop = int_value(&self.eval(fr, stop)?, "a range stop")?;
                let step = match step {
                    Some(s) => int_value(&self.eval(fr, s)?, "a range step")?,
                    None => 1,
                };
                if step == 0 {
                    return Err(VrError::runtime("zero step in a range"));
                }
                Ok(Value::Range(RangeVal { start, stop, step }))
            }
            Expr::Domain { ranges } => {
                let mut rs = Vec::with_capacity(ranges.len());
                for r in ranges {
                    match self.eval(fr, r)? {
                        Value::Range(r) => rs.push(r),
                        other => return Err(internal(format!("domain of {}", describe(&other)))),
                    }
                }
                Ok(Value::Domain(rs))
            }
            Expr::Tuple { items } => {
                let mut vals = Vec::with_capacity(items.len());
                for i in items {
                    vals.push(self.eval(fr, i)?);
                }
                Ok(Value::Tuple(vals))
            }
            Expr::TupleGet { arg, index } => match self.eval(fr, arg)? {
                Value::Tuple(mut items) if (*index as usize) < items.len() => {
                    Ok(items.swap_remove(*index as usize))
                }
                other => Err(internal(format!("tget {index} of {}", describe(&other)))),
            },
            Expr::Map { func, args } => self.eval_map(fr, func, args),
            Expr::Index {
                array,
                indices,
                flags,
            } => {
                if let Expr::Var { name } = &**array {
                    // Read the variable in place instead of cloning it. Evaluating the
                    // indices cannot reassign a variable, so reading it after them is
                    // the same as before (checked first, for the order of errors).
                    fr.get(name)?;
                    let written = self.eval_indices(fr, indices)?;
                    let a = array_ops::as_array(fr.get(name)?, "index")?;
                    return index::read(a, &written, &self.index_ctx(Some(name), *flags));
                }
                let v = self.eval(fr, array)?;
                let a = array_ops::as_array(&v, "index")?;
                let written = self.eval_indices(fr, indices)?;
                index::read(a, &written, &self.index_ctx(None, *flags))
            }
            Expr::AtomicAdd {
                array,
                indices,
                value,
            } => {
                let a = match fr.get(array)? {
                    Value::Array(a) => a.clone(),
                    other => return Err(internal(format!("atomic-add on {}", describe(other)))),
                };
                let written = self.eval_indices(fr, indices)?;
                let v = self.eval(fr, value)?;
                let ctx = self.index_ctx(Some(array), IndexFlags::default());
                let p = index::element_position(&a, &written, &ctx)?;
                let Value::Scalar(v) = v else {
                    return Err(internal("atomic-add of a non-scalar"));
                };
                let old = a.data.borrow().get(p);
                let new = arith::binop(BinOp::Add, old, v)?;
                array_ops::store(&mut a.data.borrow_mut(), p, new)?;
                Ok(Value::Scalar(old))
            }
            Expr::AtomicCas {
                array,
                indices,
                expected,
                new,
            } => {
                let a = match fr.get(array)? {
                    Value::Array(a) => a.clone(),
                    other => return Err(internal(format!("atomic-cas on {}", describe(other)))),
                };
                let written = self.eval_indices(fr, indices)?;
                let expected = self.eval(fr, expected)?;
                let new = self.eval(fr, new)?;
                let (Value::Scalar(expected), Value::Scalar(new)) = (expected, new) else {
                    return Err(internal("atomic-cas of non-scalars"));
                };
                let ctx = self.index_ctx(Some(array), IndexFlags::default());
                let p = index::element_position(&a, &written, &ctx)?;
                let old = a.data.borrow().get(p);
                if arith::binop(BinOp::Eq, old, expected)? == Scalar::Bool(true) {
                    array_ops::store(&mut a.data.borrow_mut(), p, new)?;
                }
                Ok(Value::Scalar(old))
            }
        }
    }

    pub(crate) fn index_ctx<'a>(
        &self,
        variable: Option<&'a str>,
        flags: IndexFlags,
    ) -> IndexCtx<'a> {
        IndexCtx {
            variable,
            base: self.module.index_base as i64,
            flags,
        }
    }

    /// Evaluate index expressions left to right into their written form. A `range`
    /// expression is taken apart here, since as an index its endpoints may be absent.
    pub(crate) fn eval_indices(
        &mut self,
        fr: &mut Frame<'m>,
        indices: &'m [Expr],
    ) -> VrResult<Vec<Written>> {
        let mut out = Vec::with_capacity(indices.len());
        for e in indices {
            let w = match e {
                Expr::Range { start, stop, step } => {
                    let mut end = |x: &'m Option<Box<Expr>>, what: &str| -> VrResult<Option<i64>> {
                        match x {
                            Some(x) => Ok(Some(int_value(&self.eval(fr, x)?, what)?)),
                            None => Ok(None),
                        }
                    };
                    let start = end(start, "a range start")?;
                    let stop = end(stop, "a range stop")?;
                    let step = end(step, "a range step")?.unwrap_or(1);
                    Written::Range { start, stop, step }
                }
                other => match self.eval(fr, other)? {
                    Value::Scalar(Scalar::I32(i)) => Written::Scalar(i as i64),
                    Value::Scalar(Scalar::I64(i)) => Written::Scalar(i),
                    Value::Range(r) => Written::Range {
                        start: Some(r.start),
                        stop: Some(r.stop),
                        step: r.step,
                    },
                    Value::Array(a) if a.ndims() == 1 && a.ty.elem.is_int() => {
                        Written::Gather(a.elements().iter().filter_map(|s| s.as_i64()).collect())
                    }
                    Value::Array(a) if a.ndims() == 1 && a.ty.elem == ScalarType::Bool => {
                        Written::Mask(a.elements().iter().filter_map(|s| s.as_bool()).collect())
                    }
                    v => return Err(internal(format!("index of type {}", describe(&v)))),
                },
            };
            out.push(w);
        }
        Ok(out)
    }

    fn eval_binary(
        &mut self,
        fr: &mut Frame<'m>,
        op: BinOp,
        lhs: &'m Expr,
        rhs: &'m Expr,
    ) -> VrResult<Value> {
        let a = self.eval(fr, lhs)?;
        if op.is_logical() {
            // Scalar `and`/`or` short-circuit; array operands are element-wise.
            if let Value::Scalar(Scalar::Bool(x)) = a {
                let decided = if op == BinOp::And { !x } else { x };
                if decided && self.is_scalar_expr(fr, rhs) {
                    return Ok(Value::Scalar(Scalar::Bool(x)));
                }
            }
        }
        let b = self.eval(fr, rhs)?;
        let t = elem_type(&a)?;
        map2(&a, &b, arith::binop_result(op, t), |x, y| {
            arith::binop(op, x, y)
        })
    }

    /// Is `e` known, without evaluating it, to be a scalar? (Used only to decide
    /// whether `and`/`or` may short-circuit; "don't know" answers false.)
    fn is_scalar_expr(&self, fr: &Frame<'m>, e: &Expr) -> bool {
        let var_type = |name: &str| fr.var_type(name);
        match e {
            Expr::Const { .. }
            | Expr::Dim { .. }
            | Expr::AtomicAdd { .. }
            | Expr::AtomicCas { .. } => true,
            Expr::Var { name } => matches!(var_type(name), Some(Type::Scalar { .. })),
            Expr::Unary { arg, .. } => self.is_scalar_expr(fr, arg),
            Expr::Binary { lhs, rhs, .. } => {
                self.is_scalar_expr(fr, lhs) && self.is_scalar_expr(fr, rhs)
            }
            Expr::Cast { to, .. } => matches!(to, Type::Scalar { .. }),
            Expr::Call { func, .. } => self
                .module
                .function(func)
                .is_some_and(|f| matches!(f.results.as_slice(), [Type::Scalar { .. }])),
            Expr::Lib {
                func: LibFn::Len | LibFn::Ndims,
                ..
            } => true,
            Expr::Lib {
                func: LibFn::Matmul | LibFn::Transpose | LibFn::Copy,
                ..
            } => false,
            Expr::Lib { args, .. } => args.iter().all(|a| self.is_scalar_expr(fr, a)),
            Expr::Reduce { axis, .. } => axis.is_none(),
            Expr::Index { array, indices, .. } => {
                let rank = match &**array {
                    Expr::Var { name } => var_type(name)
                        .and_then(Type::as_array)
                        .map(|a| a.ndims as usize),
                    _ => None,
                };
                rank == Some(indices.len())
                    && indices
                        .iter()
                        .all(|i| !matches!(i, Expr::Range { .. }) && self.is_scalar_expr(fr, i))
            }
            Expr::TupleGet { arg, index } => {
                let items: Option<Vec<Type>> = match &**arg {
                    Expr::Call { func, .. } => {
                        self.module.function(func).map(|f| f.results.clone())
                    }
                    Expr::Var { name } => match var_type(name) {
                        Some(Type::Tuple { items }) => Some(items.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                items.is_some_and(|ts| matches!(ts.get(*index as usize), Some(Type::Scalar { .. })))
            }
            _ => false,
        }
    }

    /// `(map F args...)`: F applied element by element over arrays of one shape, scalars
    /// broadcast.
    fn eval_map(&mut self, fr: &mut Frame<'m>, func: &str, args: &'m [Expr]) -> VrResult<Value> {
        let f = self
            .module
            .function(func)
            .ok_or_else(|| internal(format!("map of unknown function `{func}`")))?;
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(fr, a)?);
        }
        let out_elem = match f.results.as_slice() {
            [Type::Scalar { elem }] => *elem,
            _ => {
                return Err(internal(format!(
                    "map of `{func}`, which does not return one scalar"
                )))
            }
        };
        let mut first = None;
        for v in &vals {
            match v {
                Value::Array(a) => match &first {
                    None => first = Some(a.clone()),
                    Some(f0) => array_ops::check_same_shape(&f0.dims, &a.dims)?,
                },
                Value::Scalar(_) => {}
                other => return Err(internal(format!("map over {}", describe(other)))),
            }
        }
        let Some(first) = first else {
            // No array argument: one application (verified code always has one).
            let mut out = self.call_function(f, vals)?;
            return out
                .pop()
                .ok_or_else(|| internal("map function returned nothing"));
        };
        // Each argument's elements in logical order (a scalar stays itself).
        let columns: Vec<Option<Vec<Scalar>>> = vals
            .iter()
            .map(|v| match v {
                Value::Array(a) => Some(a.elements()),
                _ => None,
            })
            .collect();
        let mut elems = Vec::with_capacity(first.len());
        for k in 0..first.len() {
            let args: Vec<Value> = vals
                .iter()
                .zip(&columns)
                .map(|(v, col)| match col {
                    Some(c) => Value::Scalar(c[k]),
                    None => v.clone(),
                })
                .collect();
            match self.call_function(f, args)?.pop() {
                Some(Value::Scalar(s)) => elems.push(s),
                _ => return Err(internal("map function did not return a scalar")),
            }
        }
        Ok(Value::Array(from_logical(
            out_elem,
            fresh_layout(first.ty.layout),
            first.dims.clone(),
            &elems,
        )?))
    }
}

/// A library function applied to evaluated arguments.
fn library(f: LibFn, args: &[Value]) -> VrResult<Value> {
    if args.len() != f.arity() {
        return Err(internal(format!(
            "{} takes {} arguments, got {}",
            f.name(),
            f.arity(),
            args.len()
        )));
    }
    match f {
        LibFn::Matmul => array_ops::matmul(&args[0], &args[1]),
        LibFn::Transpose => array_ops::transpose(&args[0]),
        LibFn::Copy => {
            let a = array_ops::as_array(&args[0], "copy")?;
            Ok(Value::Array(array_ops::copy_array(a, a.ty.layout)?))
        }
        LibFn::Len => Ok(Value::Scalar(Scalar::I64(
            array_ops::as_array(&args[0], "len")?.len() as i64,
        ))),
        LibFn::Ndims => Ok(Value::Scalar(Scalar::I64(
            array_ops::as_array(&args[0], "ndims")?.ndims() as i64,
        ))),
        _ if f.random_draw().is_some() => random_draw(f, args),
        _ if f.arity() == 1 => {
            let t = elem_type(&args[0])?;
            map1(&args[0], arith::lib_result(f, t), |x| arith::lib1(f, x))
        }
        _ => {
            let t = elem_type(&args[0])?;
            if elem_type(&args[1])? != t {
                return Err(VrError::new(
                    ErrorKind::Internal,
                    format!(
                        "{} of {} and {}",
                        f.name(),
                        describe(&args[0]),
                        describe(&args[1])
                    ),
                ));
            }
            map2(&args[0], &args[1], arith::lib_result(f, t), |x, y| {
                arith::lib2(f, x, y)
            })
        }
    }
}

/// A draw from the process's built-in stream (`runtime::rng`; the interpreter has no
/// host generator): R's default generator, bit for bit.
fn random_draw(f: LibFn, args: &[Value]) -> VrResult<Value> {
    let kind = f
        .random_draw()
        .ok_or_else(|| internal(format!("{} is not a draw", f.name())))?;
    let arg = match args {
        [] => 0.0,
        [Value::Scalar(Scalar::F64(dn))] => *dn,
        _ => {
            return Err(internal(format!(
                "{} of {} arguments",
                f.name(),
                args.len()
            )))
        }
    };
    crate::runtime::rng::draw(None, kind, arg)
        .map(|x| Value::Scalar(Scalar::F64(x)))
        .map_err(VrError::runtime)
}
