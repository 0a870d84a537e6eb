//! R's random number functions, lowered so that compiled code consumes R's stream exactly
//! as R's own C code does (stats' `random1`/`random2` and nmath's `runif`, `rnorm`,
//! `rexp`; base's `sample`/`sample.int` and `do_sample`), one VRIR draw
//! (`random_unif`, `random_norm`, `random_exp`, `random_index`) where R's C code calls
//! `unif_rand`, `norm_rand`, `exp_rand` or `R_unif_index`. Under the R package the draws
//! are R's own (the C API's `random` hook), so results and `.Random.seed` after the call
//! are R's; elsewhere they come from the built-in copy of R's default generator.
//!
//! - `runif(n, min = 0, max = 1)`, `rnorm(n, mean = 0, sd = 1)`, `rexp(n, rate = 1)`:
//!   `n` as R's `resultLength` reads it (a single number, truncated; else the length of
//!   the vector), parameters scalars or vectors recycled (`a[i %% na]`). Per element,
//!   R's nmath: `runif` gives `a` without drawing when `a == b`, else `a + (b - a) * u`;
//!   `rnorm` gives `mean` without drawing when `sd == 0` or `mean` is infinite, else
//!   `mean + sd * z`; `rexp` gives 0 for a zero scale (`rate = Inf`), else `scale * e`
//!   with `scale = 1 / rate`. `rgamma(n, shape, rate = 1, scale = 1/rate)`: nmath's
//!   GS (shape < 1) and GD algorithms as a helper function (`rgamma_function`), a zero
//!   parameter giving 0 and an infinite one Inf without drawing. Invalid parameters give NaN with a warning in R: compiled
//!   code raises `random_nan` (kind `unsupported`: the R package runs the function in R,
//!   whose stream it has not advanced; see docs/frontend-r.md).
//! - `sample(x, size, replace = FALSE)`, `sample.int(n, size = n, replace = FALSE)`
//!   without `prob`: R's checks and errors, then `R_unif_index(n) + 1` per element with
//!   replacement (or for fewer than 2 elements), else the partial Fisher-Yates shuffle of
//!   `do_sample` (an integer pool `0 .. n-1`, one index below the shrinking pool per
//!   element). What R computes differently is raised as `unsupported`: a result beyond
//!   R's integers (double in R), the hash algorithm R uses for `n > 1e7` without
//!   replacement and `size <= n / 2`, and `sample(x)` of a length-one numeric `x >= 1`
//!   held in a vector (R then samples `1:x`).
//! - A count that is the literal `1` (`runif(1)`, `sample(x, 1)`) gives a scalar (the
//!   value is provably one element long); anything else a vector.

use super::builtins::{bind, required};
use super::rules::{bin, i64c, lib, to_logical, DOUBLE, INTEGER, LOGICAL};
use crate::frontend::hir::{Arg, Expr, ExprKind, Line};
use crate::frontend::lower::{LResult, Lowered, Lowerer};
use crate::frontend::types::Ty;
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::{
    self, AllocInit, ArrayType, Block, IndexFlags, LValue, LibFn, Literal, Stmt, StmtKind, Type,
};

/// R's `R_XLEN_T_MAX`, 2^52: the longest vector R allocates.
const XLEN_MAX: f64 = 4_503_599_627_370_496.0;
/// R's `INT_MAX`: a sample of integers up to this stays integer in R.
const INT_MAX: f64 = 2_147_483_647.0;

/// Run-time failures of this module: (reason, message, whether R raises an error too).
/// The others R answers (with NaN and a warning, a double result, another algorithm),
/// so they are `unsupported` and the R package runs the function in R.
const REASONS: &[(&str, &str, bool)] = &[
    ("random_invalid_arguments", "invalid arguments", true),
    ("random_nan", "a random number function with invalid parameters: R gives NaN with a warning (\"NAs produced\"), which compiled code does not", false),
    ("sample_invalid_first", "invalid first argument", true),
    ("sample_invalid_size", "invalid 'size' argument", true),
    ("sample_size_nan", "vector size cannot be NA/NaN", true),
    ("sample_size_infinite", "vector size cannot be infinite", true),
    ("sample_size_too_large", "vector size specified is too large", true),
    ("sample_too_large", "cannot take a sample larger than the population when 'replace = FALSE'", true),
    ("sample_double_result", "sample() of more than 2^31 - 1 values: R's result is double, compiled code's integer", false),
    ("sample_hash", "sample() without replacement of at most half of more than 1e7 values: R uses another algorithm (a hash table), which compiled code does not", false),
    ("sample_length_one", "sample(x) of a numeric x of length one and at least 1: R samples 1:x, compiled code the elements of x", false),
];

/// The message of a run-time reason of this module, if it is one.
pub fn error_message(reason: &str) -> Option<String> {
    REASONS
        .iter()
        .find(|(r, _, _)| *r == reason)
        .map(|(_, m, _)| m.to_string())
}

/// Whether R raises an error for this reason too (then the error is a run-time error,
/// not a fallback).
pub fn r_errors_too(reason: &str) -> bool {
    REASONS.iter().any(|(r, _, e)| *r == reason && *e)
}

/// The R functions this module compiles.
pub fn is_random(name: &str) -> bool {
    matches!(name, "runif" | "rnorm" | "rexp" | "rgamma" | "sample" | "sample.int")
}

pub fn call(lw: &mut Lowerer, name: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
    match name {
        "runif" => family(lw, Family::Unif, args, line),
        "rnorm" => family(lw, Family::Norm, args, line),
        "rexp" => family(lw, Family::Exp, args, line),
        "rgamma" => family(lw, Family::Gamma, args, line),
        "sample" => sample(lw, args, line),
        _ => sample_int(lw, args, line),
    }
}

fn var(name: &str) -> vrir::Expr {
    vrir::Expr::var(name)
}

fn f64c(v: f64) -> vrir::Expr {
    vrir::Expr::f64(v)
}

fn and(a: vrir::Expr, b: vrir::Expr) -> vrir::Expr {
    bin(vrir::BinOp::And, a, b)
}

fn or(a: vrir::Expr, b: vrir::Expr) -> vrir::Expr {
    bin(vrir::BinOp::Or, a, b)
}

fn not(a: vrir::Expr) -> vrir::Expr {
    vrir::Expr::Unary {
        op: vrir::UnOp::Not,
        arg: Box::new(a),
    }
}

/// `x` is neither NaN nor infinite (R's `R_FINITE`).
fn finite(x: vrir::Expr) -> vrir::Expr {
    not(or(
        lib(LibFn::IsNan, vec![x.clone()]),
        lib(LibFn::IsInf, vec![x]),
    ))
}

fn draw(f: LibFn, args: Vec<vrir::Expr>) -> vrir::Expr {
    lib(f, args)
}

fn set(name: &str, value: vrir::Expr) -> StmtKind {
    StmtKind::Assign {
        targets: vec![LValue::Var { name: name.into() }],
        value,
    }
}

fn stmt(lw: &Lowerer, kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        line: Some(lw.line),
    }
}

fn if_else(lw: &Lowerer, cond: vrir::Expr, then: Vec<Stmt>, els: Vec<Stmt>) -> StmtKind {
    let _ = lw;
    StmtKind::If {
        cond,
        then: Block {
            on_gpu: false,
            stmts: then,
        },
        els: if els.is_empty() {
            None
        } else {
            Some(Block {
                on_gpu: false,
                stmts: els,
            })
        },
    }
}

/// The statements `body` emits, collected instead of emitted (for a loop or branch body).
fn collect(lw: &mut Lowerer, body: impl FnOnce(&mut Lowerer) -> LResult<()>) -> LResult<Vec<Stmt>> {
    let saved = std::mem::take(lw.pre_mut());
    let r = body(lw);
    let stmts = std::mem::replace(lw.pre_mut(), saved);
    r.map(|()| stmts)
}

/// Whether an argument is the literal count 1 (`1`, `1L`): the result is then a scalar.
fn is_literal_one(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Double(v) if v == 1.0) || matches!(e.kind, ExprKind::Int(1))
}

/// A numeric (logical, integer or double) value as double, R's `asReal`/`coerceVector`.
fn as_double(lw: &mut Lowerer, v: Lowered, what: &str, line: Line) -> LResult<Lowered> {
    match v.ty.elem {
        LOGICAL | INTEGER | DOUBLE => Ok(lw.cast(v, DOUBLE)),
        _ => Err(lw.unsupported(
            &format!("complex {what}"),
            line,
            "R's random number functions take real numbers",
        )),
    }
}

/// R's `resultLength(n)`: for one number, its value (checked, truncated); for a vector
/// of any other length, its length. An `i64` variable.
fn result_length(lw: &mut Lowerer, n: &Expr, line: Line) -> LResult<vrir::Expr> {
    let v = lw.expr(n)?;
    let v = as_double(lw, v, "`n`", line)?;
    let v = lw.hoist(v);
    let count = lw.temp(&Type::I64);
    let value = |lw: &mut Lowerer, dn: vrir::Expr| -> LResult<Vec<Stmt>> {
        collect(lw, |lw| {
            let dn = lw.hoist(Lowered::new(dn, Ty::scalar(DOUBLE))).expr;
            let bad = or(
                lib(LibFn::IsNan, vec![dn.clone()]),
                or(
                    bin(vrir::BinOp::Lt, dn.clone(), f64c(0.0)),
                    bin(vrir::BinOp::Gt, dn.clone(), f64c(XLEN_MAX)),
                ),
            );
            lw.raise_if(bad, "random_invalid_arguments");
            lw.emit(set(
                &count,
                vrir::Expr::Cast {
                    to: Type::I64,
                    arg: Box::new(dn),
                },
            ));
            Ok(())
        })
    };
    if v.ty.rank == 0 {
        let stmts = value(lw, v.expr)?;
        lw.pre_mut().extend(stmts);
    } else {
        lw.emit(set(&count, lib(LibFn::Len, vec![v.expr.clone()])));
        let first = flat(v.expr.clone(), i64c(1));
        let then = value(lw, first)?;
        let one = bin(vrir::BinOp::Eq, var(&count), i64c(1));
        let s = if_else(lw, one, then, vec![]);
        lw.emit(s);
    }
    Ok(var(&count))
}

/// `x[k]` counting every element (`:flat`, 1-based).
fn flat(x: vrir::Expr, k: vrir::Expr) -> vrir::Expr {
    vrir::Expr::Index {
        array: Box::new(x),
        indices: vec![k],
        flags: IndexFlags {
            flatten: true,
            ..IndexFlags::default()
        },
    }
}

/// A distribution parameter: a scalar, or a vector recycled over the draws.
struct Param {
    value: Lowered,
    /// Its length (`i64` variable) for a vector.
    len: Option<String>,
}

impl Param {
    /// The value for draw `i` (1-based `i64` expression): `a[(i - 1) %% na + 1]`.
    fn at(&self, i: vrir::Expr) -> vrir::Expr {
        match &self.len {
            None => self.value.expr.clone(),
            Some(n) => flat(
                self.value.expr.clone(),
                bin(
                    vrir::BinOp::Add,
                    bin(vrir::BinOp::Mod, bin(vrir::BinOp::Sub, i, i64c(1)), var(n)),
                    i64c(1),
                ),
            ),
        }
    }
}

fn param(
    lw: &mut Lowerer,
    e: Option<&Expr>,
    default: f64,
    what: &str,
    line: Line,
) -> LResult<Param> {
    let Some(e) = e else {
        return Ok(Param {
            value: Lowered::new(f64c(default), Ty::scalar(DOUBLE)),
            len: None,
        });
    };
    let v = lw.expr(e)?;
    let v = as_double(lw, v, what, line)?;
    let v = lw.hoist(v);
    if v.ty.rank == 0 {
        return Ok(Param {
            value: v,
            len: None,
        });
    }
    let n = lw.temp(&Type::I64);
    lw.emit(set(&n, lib(LibFn::Len, vec![v.expr.clone()])));
    Ok(Param {
        value: v,
        len: Some(n),
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Family {
    Unif,
    Norm,
    Exp,
    /// `rgamma(n, shape, rate = 1, scale = 1/rate)`: the second parameter is the rate
    /// (the scale is `1 / rate` per element, as R's `rgamma` computes it before its
    /// `.Call`), or the scale when only `scale =` is given (`Family::GammaScale`).
    Gamma,
    GammaScale,
}

/// `runif`, `rnorm`, `rexp`, `rgamma`.
fn family(lw: &mut Lowerer, fam: Family, args: &[Arg], line: Line) -> LResult<Lowered> {
    let (name, formals, defaults): (&str, &[&str], [f64; 2]) = match fam {
        Family::Unif => ("runif", &["n", "min", "max"], [0.0, 1.0]),
        Family::Norm => ("rnorm", &["n", "mean", "sd"], [0.0, 1.0]),
        Family::Exp => ("rexp", &["n", "rate"], [1.0, 0.0]),
        Family::Gamma | Family::GammaScale => ("rgamma", &["n", "shape", "rate", "scale"], [f64::NAN, 1.0]),
    };
    let mut fam = fam;
    let b = bind(lw, name, args, formals, line)?;
    let b = if fam == Family::Gamma {
        // shape is required (R's error otherwise); `rate` and `scale` together is R's
        // check (a warning or an error), not compiled.
        required(lw, name, b[1], "shape", line)?;
        match (b[2], b[3]) {
            (Some(_), Some(_)) => {
                return Err(lw.unsupported(
                    "`rgamma` with both `rate` and `scale`",
                    line,
                    "R checks that they agree (\"specify 'rate' or 'scale' but not both\"); give one",
                ))
            }
            (None, Some(s)) => {
                fam = Family::GammaScale;
                vec![b[0], b[1], Some(s)]
            }
            (r, None) => vec![b[0], b[1], r],
        }
    } else {
        b
    };
    let n_arg = required(lw, name, b[0], "n", line)?;
    let scalar = is_literal_one(n_arg);
    let n = if scalar {
        i64c(1)
    } else {
        result_length(lw, n_arg, line)?
    };
    let mut params = vec![param(
        lw,
        b[1],
        defaults[0],
        &format!("`{}`", formals[1]),
        line,
    )?];
    if fam != Family::Exp {
        let defaults = if matches!(fam, Family::Gamma | Family::GammaScale) { [f64::NAN, 1.0] } else { defaults };
        params.push(param(
            lw,
            b[2],
            defaults[1],
            &format!("`{}`", formals[2]),
            line,
        )?);
    }
    // R fills NA (with a warning) when a parameter has no elements and n > 0.
    let empty = params
        .iter()
        .filter_map(|p| p.len.as_ref())
        .map(|l| bin(vrir::BinOp::Lt, var(l), i64c(1)))
        .reduce(or);
    if let Some(empty) = empty {
        lw.raise_if(
            and(bin(vrir::BinOp::Gt, n.clone(), i64c(0)), empty),
            "random_nan",
        );
    }
    let out = lw.temp(&Type::F64);
    if scalar {
        let args: Vec<vrir::Expr> = params.iter().map(|p| p.at(i64c(1))).collect();
        one_draw(lw, fam, &args, &out)?;
        return Ok(Lowered::new(var(&out), Ty::scalar(DOUBLE)));
    }
    let ty = Ty::array(DOUBLE, 1);
    let x = lw.temp(&ty.vrir(lw.layout()));
    lw.emit(set(
        &x,
        vrir::Expr::Alloc {
            init: AllocInit::Empty,
            ty: ArrayType::new(DOUBLE, 1, lw.layout()),
            dims: vec![n.clone()],
        },
    ));
    let i = lw.temp(&Type::I64);
    let body = collect(lw, |lw| {
        let args: Vec<vrir::Expr> = params.iter().map(|p| p.at(var(&i))).collect();
        one_draw(lw, fam, &args, &out)?;
        lw.emit(StmtKind::Assign {
            targets: vec![LValue::Index {
                array: x.clone(),
                indices: vec![var(&i)],
                flags: IndexFlags::default(),
            }],
            value: var(&out),
        });
        Ok(())
    })?;
    lw.emit(StmtKind::For {
        vars: vec![i],
        domain: vrir::Expr::Range {
            start: Some(Box::new(i64c(1))),
            stop: Some(Box::new(n)),
            step: None,
        },
        body: Block {
            on_gpu: false,
            stmts: body,
        },
    });
    Ok(Lowered::new(var(&x), ty))
}

/// One value of R's nmath function for these parameters into `out`, drawing as R does.
fn one_draw(lw: &mut Lowerer, fam: Family, args: &[vrir::Expr], out: &str) -> LResult<()> {
    let args: Vec<vrir::Expr> = args
        .iter()
        .map(|a| lw.hoist(Lowered::new(a.clone(), Ty::scalar(DOUBLE))).expr)
        .collect();
    match fam {
        Family::Unif => {
            let (a, b) = (args[0].clone(), args[1].clone());
            lw.raise_if(
                or(
                    not(and(finite(a.clone()), finite(b.clone()))),
                    bin(vrir::BinOp::Lt, b.clone(), a.clone()),
                ),
                "random_nan",
            );
            // do { u = unif_rand(); } while (u <= 0 || u >= 1): R's guard against
            // user-supplied generators (R's own never leave (0, 1)).
            let u = lw.temp(&Type::F64);
            let outside = or(
                bin(vrir::BinOp::Le, var(&u), f64c(0.0)),
                bin(vrir::BinOp::Ge, var(&u), f64c(1.0)),
            );
            let draws = vec![
                stmt(lw, set(&u, draw(LibFn::RandomUnif, vec![]))),
                stmt(
                    lw,
                    StmtKind::While {
                        cond: outside,
                        body: Block {
                            on_gpu: false,
                            stmts: vec![stmt(lw, set(&u, draw(LibFn::RandomUnif, vec![])))],
                        },
                    },
                ),
                stmt(
                    lw,
                    set(
                        out,
                        bin(
                            vrir::BinOp::Add,
                            a.clone(),
                            bin(
                                vrir::BinOp::Mul,
                                bin(vrir::BinOp::Sub, b.clone(), a.clone()),
                                var(&u),
                            ),
                        ),
                    ),
                ),
            ];
            let s = if_else(
                lw,
                bin(vrir::BinOp::Eq, a.clone(), b),
                vec![stmt(lw, set(out, a))],
                draws,
            );
            lw.emit(s);
        }
        Family::Norm => {
            let (mu, sigma) = (args[0].clone(), args[1].clone());
            let bad = or(
                lib(LibFn::IsNan, vec![mu.clone()]),
                or(
                    not(finite(sigma.clone())),
                    bin(vrir::BinOp::Lt, sigma.clone(), f64c(0.0)),
                ),
            );
            lw.raise_if(bad, "random_nan");
            let keep = or(
                bin(vrir::BinOp::Eq, sigma.clone(), f64c(0.0)),
                not(finite(mu.clone())),
            );
            let drawn = bin(
                vrir::BinOp::Add,
                mu.clone(),
                bin(vrir::BinOp::Mul, sigma, draw(LibFn::RandomNorm, vec![])),
            );
            let s = if_else(
                lw,
                keep,
                vec![stmt(lw, set(out, mu))],
                vec![stmt(lw, set(out, drawn))],
            );
            lw.emit(s);
        }
        Family::Gamma | Family::GammaScale => {
            let a = args[0].clone();
            let scale = if fam == Family::Gamma {
                // R: scale = 1/rate, then .Call(C_rgamma, n, shape, scale).
                lw.hoist(Lowered::new(bin(vrir::BinOp::Div, f64c(1.0), args[1].clone()), Ty::scalar(DOUBLE))).expr
            } else {
                args[1].clone()
            };
            // nmath's checks: NaN, or a negative parameter (but a zero one gives 0), is
            // NaN with a warning in R; an infinite one gives Inf without drawing.
            let nan = or(lib(LibFn::IsNan, vec![a.clone()]), lib(LibFn::IsNan, vec![scale.clone()]));
            let nonpositive = or(bin(vrir::BinOp::Le, a.clone(), f64c(0.0)), bin(vrir::BinOp::Le, scale.clone(), f64c(0.0)));
            let zero = or(bin(vrir::BinOp::Eq, a.clone(), f64c(0.0)), bin(vrir::BinOp::Eq, scale.clone(), f64c(0.0)));
            lw.raise_if(or(nan, and(nonpositive.clone(), not(zero))), "random_nan");
            let helper = rgamma_helper(lw);
            let infinite = or(not(finite(a.clone())), not(finite(scale.clone())));
            let drawn = vrir::Expr::Call { func: helper, args: vec![a, scale] };
            let inner = if_else(lw, infinite, vec![stmt(lw, set(out, f64c(f64::INFINITY)))], vec![stmt(lw, set(out, drawn))]);
            let s = if_else(lw, nonpositive, vec![stmt(lw, set(out, f64c(0.0)))], vec![stmt(lw, inner)]);
            lw.emit(s);
        }
        Family::Exp => {
            // R: rexp(n, rate) is .Call(C_rexp, n, 1/rate).
            let scale = lw
                .hoist(Lowered::new(
                    bin(vrir::BinOp::Div, f64c(1.0), args[0].clone()),
                    Ty::scalar(DOUBLE),
                ))
                .expr;
            let degenerate = or(
                not(finite(scale.clone())),
                bin(vrir::BinOp::Le, scale.clone(), f64c(0.0)),
            );
            lw.raise_if(
                and(
                    degenerate.clone(),
                    bin(vrir::BinOp::Ne, scale.clone(), f64c(0.0)),
                ),
                "random_nan",
            );
            let drawn = bin(vrir::BinOp::Mul, scale, draw(LibFn::RandomExp, vec![]));
            let s = if_else(
                lw,
                degenerate,
                vec![stmt(lw, set(out, f64c(0.0)))],
                vec![stmt(lw, set(out, drawn))],
            );
            lw.emit(s);
        }
    }
    Ok(())
}

/// `replace` as R's `asLogical` reads it (a single logical or number).
fn replace_arg(lw: &mut Lowerer, e: Option<&Expr>, line: Line) -> LResult<vrir::Expr> {
    let Some(e) = e else {
        return Ok(vrir::Expr::lit(Literal::Bool(false)));
    };
    let v = lw.expr(e)?;
    if v.ty.rank != 0 {
        return Err(lw.unsupported(
            "`replace` of length other than one",
            line,
            "R requires a single TRUE or FALSE",
        ));
    }
    let v = to_logical(lw, v, line)?;
    Ok(lw.hoist(v).expr)
}

/// `prob =` (or `useHash =`) given: weighted sampling is not compiled.
fn no_prob(lw: &Lowerer, func: &str, args: &[Arg], line: Line) -> LResult<()> {
    for a in args {
        match a.name.as_deref() {
            Some("prob") => return Err(prob_unsupported(lw, func, line)),
            Some("useHash") => {
                return Err(lw.unsupported(
                    &format!("`{func}(..., useHash =)`"),
                    line,
                    "the choice of R's hash algorithm is not compiled",
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn prob_unsupported(lw: &Lowerer, func: &str, line: Line) -> crate::frontend::lower::LErr {
    lw.unsupported(
        &format!("`{func}(..., prob =)`"),
        line,
        "weighted sampling (R's Walker alias and probability samplers) is not compiled",
    )
}

/// `sample.int(n, size = n, replace = FALSE)`.
fn sample_int(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    no_prob(lw, "sample.int", args, line)?;
    let b = bind(
        lw,
        "sample.int",
        args,
        &["n", "size", "replace", "prob"],
        line,
    )?;
    if b[3].is_some() {
        return Err(prob_unsupported(lw, "sample.int", line));
    }
    let n = lw.expr(required(lw, "sample.int", b[0], "n", line)?)?;
    if n.ty.rank != 0 {
        return Err(lw.unsupported(
            "`sample.int(n)` of a vector `n`",
            line,
            "R requires length(n) == 1",
        ));
    }
    let dn = as_double(lw, n, "`n`", line)?;
    let dn = lw.hoist(dn);
    let scalar = b[1].is_some_and(is_literal_one);
    let size = match b[1] {
        Some(e) => size_arg(lw, e, line)?,
        None => dn.expr.clone(),
    };
    let replace = replace_arg(lw, b[2], line)?;
    draw_indices(lw, dn.expr, size, replace, scalar)
}

/// A `size` argument: a single integer or double, as a double.
fn size_arg(lw: &mut Lowerer, e: &Expr, line: Line) -> LResult<vrir::Expr> {
    let v = lw.expr(e)?;
    if v.ty.rank != 0 {
        return Err(lw.unsupported(
            "`size` of length other than one",
            line,
            "R requires a single number (invalid 'size' argument)",
        ));
    }
    if !matches!(v.ty.elem, INTEGER | DOUBLE) {
        return Err(lw.unsupported(
            &format!("`size` of type {}", v.ty.elem),
            line,
            "compiled `sample` takes an integer or double size",
        ));
    }
    let v = lw.cast(v, DOUBLE);
    Ok(lw.hoist(v).expr)
}

/// `sample(x, size, replace = FALSE)`.
fn sample(lw: &mut Lowerer, args: &[Arg], line: Line) -> LResult<Lowered> {
    no_prob(lw, "sample", args, line)?;
    let b = bind(lw, "sample", args, &["x", "size", "replace", "prob"], line)?;
    if b[3].is_some() {
        return Err(prob_unsupported(lw, "sample", line));
    }
    let x = lw.expr(required(lw, "sample", b[0], "x", line)?)?;
    let x = lw.hoist(x);
    let numeric = matches!(x.ty.elem, INTEGER | DOUBLE);
    let scalar = b[1].is_some_and(is_literal_one);
    if x.ty.rank == 0 {
        if !numeric {
            return Err(lw.unsupported(
                &format!("`sample` of a single {}", x.ty.elem),
                line,
                "R samples the value itself; compiled `sample` takes numbers or vectors",
            ));
        }
        // R: length(x) == 1 && is.finite(x) && x >= 1 -> sample.int(x, size); else
        // x[sample.int(1, size)], a vector of x's type.
        let dn = lw.cast(x, DOUBLE);
        let dn = lw.hoist(dn).expr;
        lw.raise_if(
            not(and(
                finite(dn.clone()),
                bin(vrir::BinOp::Ge, dn.clone(), f64c(1.0)),
            )),
            "sample_length_one",
        );
        let size = match b[1] {
            Some(e) => size_arg(lw, e, line)?,
            None => dn.clone(),
        };
        let replace = replace_arg(lw, b[2], line)?;
        return draw_indices(lw, dn, size, replace, scalar);
    }
    let len = lw.temp(&Type::I64);
    lw.emit(set(&len, lib(LibFn::Len, vec![x.expr.clone()])));
    if numeric {
        let first = lw
            .cast(
                Lowered::new(flat(x.expr.clone(), i64c(1)), Ty::scalar(x.ty.elem)),
                DOUBLE,
            )
            .expr;
        // Only read x[1] when there is one element (`and` short-circuits on scalars).
        let one = and(
            bin(vrir::BinOp::Eq, var(&len), i64c(1)),
            and(
                finite(first.clone()),
                bin(vrir::BinOp::Ge, first, f64c(1.0)),
            ),
        );
        lw.raise_if(one, "sample_length_one");
    }
    let dn = vrir::Expr::Cast {
        to: Type::F64,
        arg: Box::new(var(&len)),
    };
    let dn = lw.hoist(Lowered::new(dn, Ty::scalar(DOUBLE))).expr;
    let size = match b[1] {
        Some(e) => size_arg(lw, e, line)?,
        None => dn.clone(),
    };
    let replace = replace_arg(lw, b[2], line)?;
    let idx = draw_indices(lw, dn, size, replace, scalar)?;
    let ty = if scalar {
        Ty::scalar(x.ty.elem)
    } else {
        Ty::array(x.ty.elem, 1)
    };
    Ok(Lowered::new(flat(x.expr, idx.expr), ty))
}

/// R's `sample.int(dn, size, replace)` (R-level `useHash` test, then `do_sample`'s
/// uniform case): 1-based integer indices, an `i32` vector (a scalar when `scalar`).
fn draw_indices(
    lw: &mut Lowerer,
    dn: vrir::Expr,
    size: vrir::Expr,
    replace: vrir::Expr,
    scalar: bool,
) -> LResult<Lowered> {
    // R's `useHash = n > 1e7 && !replace && size <= n/2` picks `do_sample2`, which checks
    // `n` and `size` (R's errors) and then draws by a hash table (not compiled). A NaN
    // size makes `useHash` NA: R's error, from R.
    let big = and(
        bin(vrir::BinOp::Gt, dn.clone(), f64c(1e7)),
        not(replace.clone()),
    );
    let big = lw.hoist(Lowered::new(big, Ty::scalar(LOGICAL))).expr;
    lw.raise_if(
        and(big.clone(), lib(LibFn::IsNan, vec![size.clone()])),
        "sample_hash",
    );
    let hash = and(
        big,
        bin(
            vrir::BinOp::Le,
            size.clone(),
            bin(vrir::BinOp::Div, dn.clone(), f64c(2.0)),
        ),
    );
    let hash = lw.hoist(Lowered::new(hash, Ty::scalar(LOGICAL))).expr;
    lw.raise_if(
        and(
            hash.clone(),
            or(
                not(finite(dn.clone())),
                bin(vrir::BinOp::Gt, dn.clone(), f64c(4.5e15)),
            ),
        ),
        "sample_invalid_first",
    );
    lw.raise_if(
        and(hash.clone(), bin(vrir::BinOp::Le, size.clone(), f64c(-1.0))),
        "sample_invalid_size",
    );
    lw.raise_if(hash, "sample_hash");
    // k = asVecSize(size)
    lw.raise_if(lib(LibFn::IsNan, vec![size.clone()]), "sample_size_nan");
    lw.raise_if(
        lib(LibFn::IsInf, vec![size.clone()]),
        "sample_size_infinite",
    );
    lw.raise_if(
        bin(vrir::BinOp::Gt, size.clone(), f64c(XLEN_MAX)),
        "sample_size_too_large",
    );
    let k = lw.temp(&Type::I64);
    lw.emit(set(
        &k,
        vrir::Expr::Cast {
            to: Type::I64,
            arg: Box::new(size),
        },
    ));
    let kd = vrir::Expr::Cast {
        to: Type::F64,
        arg: Box::new(var(&k)),
    };
    let bad_n = or(
        not(finite(dn.clone())),
        or(
            bin(vrir::BinOp::Lt, dn.clone(), f64c(0.0)),
            or(
                bin(vrir::BinOp::Gt, dn.clone(), f64c(4.5e15)),
                and(
                    bin(vrir::BinOp::Gt, var(&k), i64c(0)),
                    bin(vrir::BinOp::Eq, dn.clone(), f64c(0.0)),
                ),
            ),
        ),
    );
    lw.raise_if(bad_n, "sample_invalid_first");
    lw.raise_if(
        bin(vrir::BinOp::Lt, var(&k), i64c(0)),
        "sample_invalid_size",
    );
    lw.raise_if(
        and(
            not(replace.clone()),
            bin(vrir::BinOp::Gt, kd.clone(), dn.clone()),
        ),
        "sample_too_large",
    );
    lw.raise_if(
        or(
            bin(vrir::BinOp::Gt, dn.clone(), f64c(INT_MAX)),
            bin(vrir::BinOp::Gt, kd, f64c(INT_MAX)),
        ),
        "sample_double_result",
    );
    // n = (int) dn; every draw is R_unif_index of a whole number.
    let n = lw.temp(&Type::I64);
    lw.emit(set(
        &n,
        vrir::Expr::Cast {
            to: Type::I64,
            arg: Box::new(dn),
        },
    ));
    let index_of = |m: vrir::Expr| {
        let below = draw(
            LibFn::RandomIndex,
            vec![vrir::Expr::Cast {
                to: Type::F64,
                arg: Box::new(m),
            }],
        );
        vrir::Expr::Cast {
            to: Type::I32,
            arg: Box::new(bin(vrir::BinOp::Add, below, f64c(1.0))),
        }
    };
    if scalar {
        // k = 1: one index, whatever `replace` says (R's "k < 2" case).
        let out = lw.temp(&Type::I32);
        lw.emit(set(&out, index_of(var(&n))));
        return Ok(Lowered::new(var(&out), Ty::scalar(INTEGER)));
    }
    let ity = ArrayType::new(INTEGER, 1, lw.layout());
    let y = lw.temp(&Type::Array(ity));
    lw.emit(set(
        &y,
        vrir::Expr::Alloc {
            init: AllocInit::Empty,
            ty: ity,
            dims: vec![var(&k)],
        },
    ));
    let i = lw.temp(&Type::I64);
    let range = |stop: vrir::Expr| vrir::Expr::Range {
        start: Some(Box::new(i64c(1))),
        stop: Some(Box::new(stop)),
        step: None,
    };
    let store = |target: &str, at: vrir::Expr, value: vrir::Expr| StmtKind::Assign {
        targets: vec![LValue::Index {
            array: target.into(),
            indices: vec![at],
            flags: IndexFlags::default(),
        }],
        value,
    };
    // With replacement (or fewer than two draws): y[i] = R_unif_index(n) + 1.
    let with = vec![stmt(
        lw,
        StmtKind::For {
            vars: vec![i.clone()],
            domain: range(var(&k)),
            body: Block {
                on_gpu: false,
                stmts: vec![stmt(lw, store(&y, var(&i), index_of(var(&n))))],
            },
        },
    )];
    // Without: the pool x = 0 .. n-1; y[i] = x[j] + 1 for j = R_unif_index(m), then the
    // last of the pool moves into its place and the pool shrinks (m = n, n-1, ...).
    let pool = lw.temp(&Type::Array(ity));
    let j = lw.temp(&Type::I64);
    let m = lw.temp(&Type::I64);
    let at = |e: vrir::Expr| bin(vrir::BinOp::Add, e, i64c(1));
    let read = |arr: &str, e: vrir::Expr| vrir::Expr::Index {
        array: Box::new(var(arr)),
        indices: vec![e],
        flags: IndexFlags::default(),
    };
    let draw_j = vrir::Expr::Cast {
        to: Type::I64,
        arg: Box::new(draw(
            LibFn::RandomIndex,
            vec![vrir::Expr::Cast {
                to: Type::F64,
                arg: Box::new(var(&m)),
            }],
        )),
    };
    let without = vec![
        stmt(
            lw,
            set(
                &pool,
                vrir::Expr::Alloc {
                    init: AllocInit::Empty,
                    ty: ity,
                    dims: vec![var(&n)],
                },
            ),
        ),
        stmt(
            lw,
            StmtKind::For {
                vars: vec![i.clone()],
                domain: range(var(&n)),
                body: Block {
                    on_gpu: false,
                    stmts: vec![stmt(
                        lw,
                        store(
                            &pool,
                            var(&i),
                            vrir::Expr::Cast {
                                to: Type::I32,
                                arg: Box::new(bin(vrir::BinOp::Sub, var(&i), i64c(1))),
                            },
                        ),
                    )],
                },
            },
        ),
        stmt(lw, set(&m, var(&n))),
        stmt(
            lw,
            StmtKind::For {
                vars: vec![i.clone()],
                domain: range(var(&k)),
                body: Block {
                    on_gpu: false,
                    stmts: vec![
                        stmt(lw, set(&j, draw_j)),
                        stmt(
                            lw,
                            store(
                                &y,
                                var(&i),
                                bin(
                                    vrir::BinOp::Add,
                                    read(&pool, at(var(&j))),
                                    vrir::Expr::lit(Literal::I32(1)),
                                ),
                            ),
                        ),
                        stmt(lw, set(&m, bin(vrir::BinOp::Sub, var(&m), i64c(1)))),
                        stmt(lw, store(&pool, at(var(&j)), read(&pool, at(var(&m))))),
                    ],
                },
            },
        ),
    ];
    let simple = or(replace, bin(vrir::BinOp::Lt, var(&k), i64c(2)));
    let s = if_else(lw, simple, with, without);
    lw.emit(s);
    Ok(Lowered::new(var(&y), Ty::array(INTEGER, 1)))
}

/// The R functions that draw, by the VRIR draw they lower to (for messages).
fn r_names(f: LibFn) -> &'static str {
    match f {
        LibFn::RandomUnif => "runif",
        LibFn::RandomNorm => "rnorm",
        LibFn::RandomExp => "rexp",
        _ => "sample",
    }
}

/// Random numbers inside a `prange` loop or a `gpu()` block, directly or through a
/// called function: an `unsupported` diagnostic naming the R function and the line (R's
/// generator is one serial stream, and R must not be called from worker threads). The
/// verifier rejects the same module; this says it in R's terms.
pub fn check_placement(m: &vrir::Module) -> VrResult<()> {
    let drawing: Vec<(&str, LibFn)> = m
        .functions
        .iter()
        .filter_map(|f| first_draw(m, &f.name, &mut Vec::new()).map(|d| (f.name.as_str(), d)))
        .collect();
    for f in &m.functions {
        if let Some((line, d, place)) = misplaced(&f.body, None, &drawing) {
            return Err(VrError::new(
                ErrorKind::Unsupported,
                format!(
                    "`{}` inside {place} (line {}): random numbers come from R's generator, one serial stream that R must not be called on from worker threads; draw them before the loop or block",
                    r_names(d),
                    line.map_or("?".to_string(), |l| l.to_string())
                ),
            )
            .with_function(&f.name)
            .with_line(line));
        }
    }
    Ok(())
}

/// The first draw of function `name`, directly or through its callees.
fn first_draw(m: &vrir::Module, name: &str, seen: &mut Vec<String>) -> Option<LibFn> {
    if seen.iter().any(|s| s == name) {
        return None;
    }
    seen.push(name.to_string());
    let f = m.function(name)?;
    let mut found = None;
    let mut callees = Vec::new();
    crate::analysis::walk_stmts(&f.body, &mut |s| {
        for e in crate::analysis::stmt_exprs(s) {
            crate::analysis::walk_expr(e, &mut |x| match x {
                vrir::Expr::Lib { func, .. } if func.random_draw().is_some() && found.is_none() => {
                    found = Some(*func)
                }
                vrir::Expr::Call { func, .. } | vrir::Expr::Map { func, .. } => {
                    callees.push(func.clone())
                }
                _ => {}
            });
        }
    });
    found.or_else(|| callees.iter().find_map(|c| first_draw(m, c, seen)))
}

/// The first draw in `stmts` that stands in a parfor or gpu block: (line, draw, place).
fn misplaced(
    stmts: &[Stmt],
    place: Option<&'static str>,
    drawing: &[(&str, LibFn)],
) -> Option<(Option<u32>, LibFn, &'static str)> {
    for s in stmts {
        if let Some(place) = place {
            for e in crate::analysis::stmt_exprs(s) {
                let mut hit = None;
                crate::analysis::walk_expr(e, &mut |x| match x {
                    vrir::Expr::Lib { func, .. }
                        if func.random_draw().is_some() && hit.is_none() =>
                    {
                        hit = Some(*func)
                    }
                    vrir::Expr::Call { func, .. } if hit.is_none() => {
                        hit = drawing.iter().find(|(n, _)| n == func).map(|(_, d)| *d)
                    }
                    _ => {}
                });
                if let Some(d) = hit {
                    return Some((s.line, d, place));
                }
            }
        }
        let found = match &s.kind {
            StmtKind::Block(b) => misplaced(
                &b.stmts,
                if b.on_gpu {
                    place.or(Some("a `gpu()` block"))
                } else {
                    place
                },
                drawing,
            ),
            StmtKind::If { then, els, .. } => {
                misplaced(&then.stmts, place, drawing).or_else(|| {
                    els.as_ref()
                        .and_then(|e| misplaced(&e.stmts, place, drawing))
                })
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                misplaced(&body.stmts, place, drawing)
            }
            StmtKind::Parfor { body, .. } => {
                misplaced(&body.stmts, place.or(Some("a `prange` loop")), drawing)
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The name of `rgamma_function`, added to the program once.
const RGAMMA: &str = "_rgamma";

fn rgamma_helper(lw: &mut Lowerer) -> String {
    lw.prog.helpers.entry(RGAMMA.into()).or_insert_with(rgamma_function);
    RGAMMA.into()
}

/// R's nmath `rgamma(a, scale)` for finite `a > 0` and `scale > 0` (the caller handles the
/// rest), R 4.x's src/nmath/rgamma.c statement for statement: Ahrens and Dieter's GS
/// algorithm (1974) for `a < 1`, their GD algorithm (1982) otherwise, drawing with
/// `unif_rand`, `norm_rand` and `exp_rand` where R does and computing each quantity with
/// C's operations in C's order (`0.5 * t * t * p * v` is `((0.5 * t) * t * p) * v`;
/// `expm1`, `log`, `exp`, `sqrt` are the C library's), so that every acceptance test, and
/// so the stream consumed, is R's. R caches `s`, `s2`, `d`, `q0`, `b`, `si`, `c` per `a`
/// in statics; recomputing them gives the same values.
fn rgamma_function() -> vrir::Function {
    use vrir::BinOp::{Add, Div, Ge, Gt, Le, Lt, Mul, Sub};
    let v = |n: &str| var(n);
    let c = f64c;
    let b2 = |op, x: vrir::Expr, y: vrir::Expr| bin(op, x, y);
    let f1 = |f: LibFn, x: vrir::Expr| lib(f, vec![x]);
    let st = |kind: StmtKind| Stmt { kind, line: None };
    let assign = |n: &str, e: vrir::Expr| st(set(n, e));
    let ret = |e: vrir::Expr| st(StmtKind::Return { values: vec![e] });
    let brk = || st(StmtKind::Break);
    let block = |stmts: Vec<Stmt>| Block { on_gpu: false, stmts };
    let when = |cond: vrir::Expr, then: Vec<Stmt>, els: Vec<Stmt>| {
        st(StmtKind::If { cond, then: block(then), els: if els.is_empty() { None } else { Some(block(els)) } })
    };
    let forever = |body: Vec<Stmt>| st(StmtKind::While { cond: vrir::Expr::lit(Literal::Bool(true)), body: block(body) });
    let unif = || draw(LibFn::RandomUnif, vec![]);
    let norm = || draw(LibFn::RandomNorm, vec![]);
    let expo = || draw(LibFn::RandomExp, vec![]);
    let (q1, q2, q3, q4, q5, q6, q7) = (0.04166669, 0.02083148, 0.00801191, 0.00144121, -7.388e-5, 2.4511e-4, 2.424e-4);
    let (a1, a2, a3, a4, a5, a6, a7) = (0.3333333, -0.250003, 0.2000062, -0.1662921, 0.1423657, -0.1367177, 0.1233795);
    // q = q0 + 0.5 * t * t * ((((((a7 * v + a6) * v + a5) * v + a4) * v + a3) * v + a2) * v + a1) * v
    //   or q0 - s * t + 0.25 * t * t + (s2 + s2) * log(1.0 + v)
    let quotient = || {
        let mut poly = c(a7);
        for k in [a6, a5, a4, a3, a2, a1] {
            poly = b2(Add, b2(Mul, poly, v("v")), c(k));
        }
        let small = b2(Add, v("q0"), b2(Mul, b2(Mul, b2(Mul, b2(Mul, c(0.5), v("t")), v("t")), poly), v("v")));
        let large = b2(
            Add,
            b2(Add, b2(Sub, v("q0"), b2(Mul, v("s"), v("t"))), b2(Mul, b2(Mul, c(0.25), v("t")), v("t"))),
            b2(Mul, b2(Add, v("s2"), v("s2")), f1(LibFn::Log, b2(Add, c(1.0), v("v")))),
        );
        vec![
            assign("v", b2(Div, v("t"), b2(Add, v("s"), v("s")))),
            when(b2(Le, f1(LibFn::Abs, v("v")), c(0.25)), vec![assign("q", small)], vec![assign("q", large)]),
        ]
    };
    // GS, a < 1. R's exp_m1 = 0.36787944117144232159 (1/e) is this double.
    let gs = vec![
        assign("e", b2(Add, c(1.0), b2(Mul, c(0.367_879_441_171_442_33), v("a")))),
        forever(vec![
            assign("p", b2(Mul, v("e"), unif())),
            when(
                b2(Ge, v("p"), c(1.0)),
                vec![
                    assign("x", vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(f1(LibFn::Log, b2(Div, b2(Sub, v("e"), v("p")), v("a")))) }),
                    when(b2(Ge, expo(), b2(Mul, b2(Sub, c(1.0), v("a")), f1(LibFn::Log, v("x")))), vec![brk()], vec![]),
                ],
                vec![
                    assign("x", f1(LibFn::Exp, b2(Div, f1(LibFn::Log, v("p")), v("a")))),
                    when(b2(Ge, expo(), v("x")), vec![brk()], vec![]),
                ],
            ),
        ]),
        ret(b2(Mul, v("scale"), v("x"))),
    ];
    let mut body = vec![when(b2(Lt, v("a"), c(1.0)), gs, vec![])];
    // GD, a >= 1. Step 1.
    body.push(assign("s2", b2(Sub, v("a"), c(0.5))));
    body.push(assign("s", f1(LibFn::Sqrt, v("s2"))));
    body.push(assign("d", b2(Sub, c(5.656854), b2(Mul, v("s"), c(12.0)))));
    // Step 2: immediate acceptance.
    body.push(assign("t", norm()));
    body.push(assign("x", b2(Add, v("s"), b2(Mul, c(0.5), v("t")))));
    body.push(assign("ret_val", b2(Mul, v("x"), v("x"))));
    body.push(when(b2(Ge, v("t"), c(0.0)), vec![ret(b2(Mul, v("scale"), v("ret_val")))], vec![]));
    // Step 3: squeeze acceptance.
    body.push(assign("u", unif()));
    body.push(when(b2(Le, b2(Mul, v("d"), v("u")), b2(Mul, b2(Mul, v("t"), v("t")), v("t"))), vec![ret(b2(Mul, v("scale"), v("ret_val")))], vec![]));
    // Step 4.
    body.push(assign("r", b2(Div, c(1.0), v("a"))));
    let mut q0 = c(q7);
    for k in [q6, q5, q4, q3, q2, q1] {
        q0 = b2(Add, b2(Mul, q0, v("r")), c(k));
    }
    body.push(assign("q0", b2(Mul, q0, v("r"))));
    body.push(when(
        b2(Le, v("a"), c(3.686)),
        vec![
            assign("b", b2(Add, b2(Add, c(0.463), v("s")), b2(Mul, c(0.178), v("s2")))),
            assign("si", c(1.235)),
            assign("c", b2(Add, b2(Sub, b2(Div, c(0.195), v("s")), c(0.079)), b2(Mul, c(0.16), v("s")))),
        ],
        vec![when(
            b2(Le, v("a"), c(13.022)),
            vec![
                assign("b", b2(Add, c(1.654), b2(Mul, c(0.0076), v("s2")))),
                assign("si", b2(Add, b2(Div, c(1.68), v("s")), c(0.275))),
                assign("c", b2(Add, b2(Div, c(0.062), v("s")), c(0.024))),
            ],
            vec![assign("b", c(1.77)), assign("si", c(0.75)), assign("c", b2(Div, c(0.1515), v("s")))],
        )],
    ));
    // Steps 5 to 7: quotient acceptance.
    let mut step6 = quotient();
    step6.push(when(b2(Le, f1(LibFn::Log, b2(Sub, c(1.0), v("u"))), v("q")), vec![ret(b2(Mul, v("scale"), v("ret_val")))], vec![]));
    body.push(when(b2(Gt, v("x"), c(0.0)), step6, vec![]));
    // Steps 8 to 11: double exponential rejection.
    let mut step10 = quotient();
    step10.push(when(
        b2(Gt, v("q"), c(0.0)),
        vec![
            assign("w", f1(LibFn::Expm1, v("q"))),
            when(
                b2(
                    Le,
                    b2(Mul, v("c"), f1(LibFn::Abs, v("u"))),
                    b2(Mul, v("w"), f1(LibFn::Exp, b2(Sub, v("e"), b2(Mul, b2(Mul, c(0.5), v("t")), v("t"))))),
                ),
                vec![brk()],
                vec![],
            ),
        ],
        vec![],
    ));
    body.push(forever(vec![
        assign("e", expo()),
        assign("u", unif()),
        assign("u", b2(Sub, b2(Add, v("u"), v("u")), c(1.0))),
        when(b2(Lt, v("u"), c(0.0)), vec![assign("t", b2(Sub, v("b"), b2(Mul, v("si"), v("e"))))], vec![assign("t", b2(Add, v("b"), b2(Mul, v("si"), v("e"))))]),
        when(b2(Ge, v("t"), c(-0.71874483771719)), step10, vec![]),
    ]));
    body.push(assign("x", b2(Add, v("s"), b2(Mul, c(0.5), v("t")))));
    // `scale * x * x`: (scale * x) * x, unlike `scale * ret_val` above.
    body.push(ret(b2(Mul, b2(Mul, v("scale"), v("x")), v("x"))));
    let locals = ["e", "p", "q", "r", "t", "u", "v", "w", "x", "ret_val", "s2", "s", "d", "q0", "b", "si", "c"]
        .iter()
        .map(|n| vrir::Local { name: n.to_string(), ty: Type::F64 })
        .collect();
    vrir::Function {
        name: RGAMMA.into(),
        params: ["a", "scale"].iter().map(|n| vrir::Param { name: n.to_string(), ty: Type::F64, restrict: false }).collect(),
        results: vec![Type::F64],
        locals,
        body,
        line: None,
    }
}
