//! Random modules, mostly ill-formed: the verifier answers every one without panicking,
//! every rejection is a located type error, and in every module it accepts, `expr_type`
//! types every top-level expression.

use proptest::prelude::*;

use super::{expr_type, verify_module};
use crate::runtime::error::ErrorKind;
use crate::vrir::ast::{
    Accum, AllocInit, BinOp, Block, Expr, Function, IndexFlags, LValue, LibFn, Literal, Local,
    Module, Param, ReduceOp, ScanOp, Stmt, StmtKind, UnOp,
};
use crate::vrir::types::{ArrayType, Layout, ScalarType, Type};

const VARS: &[&str] = &["a", "b", "i", "j", "x"];
const FUNCS: &[&str] = &["f", "g", "h"];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(VARS).prop_map(str::to_string)
}

fn func_name() -> impl Strategy<Value = String> {
    prop::sample::select(FUNCS).prop_map(str::to_string)
}

fn scalar_type() -> impl Strategy<Value = ScalarType> {
    prop::sample::select(ScalarType::ALL.to_vec())
}

fn array_type() -> impl Strategy<Value = ArrayType> {
    let ndims = prop_oneof![4 => 1u32..4, 1 => Just(0u32), 1 => Just(u32::MAX)];
    let layout = prop::sample::select(vec![Layout::Row, Layout::Col, Layout::Strided]);
    (scalar_type(), ndims, layout).prop_map(|(e, n, l)| ArrayType::new(e, n, l))
}

fn ty() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        4 => scalar_type().prop_map(Type::scalar),
        4 => array_type().prop_map(Type::Array),
        1 => Just(Type::Range),
        1 => (0u32..3).prop_map(|ndims| Type::Domain { ndims }),
        1 => Just(Type::Void),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|items| Type::Tuple { items }),
            (
                prop::collection::vec(inner.clone(), 0..2),
                prop::collection::vec(inner, 0..2)
            )
                .prop_map(|(params, results)| Type::Func { params, results }),
        ]
    })
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        any::<bool>().prop_map(Literal::Bool),
        (-3i32..3).prop_map(Literal::I32),
        (-3i64..3).prop_map(Literal::I64),
        Just(Literal::F32(0.5)),
        Just(Literal::F64(1.5)),
        Just(Literal::C64([1.0, 2.0])),
        Just(Literal::C128([1.0, 2.0])),
    ]
}

fn flags() -> impl Strategy<Value = IndexFlags> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(negative, flatten, check, view)| IndexFlags {
            negative,
            flatten,
            check,
            view,
        },
    )
}

fn axis() -> impl Strategy<Value = u32> {
    prop_oneof![0u32..3, Just(u32::MAX)]
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        3 => literal().prop_map(|value| Expr::Const { value }),
        3 => name().prop_map(|name| Expr::Var { name }),
        1 => Just(Expr::Range { start: None, stop: None, step: None }),
    ];
    leaf.prop_recursive(4, 24, 3, |e| {
        let boxed = e.clone().prop_map(Box::new);
        let args = prop::collection::vec(e.clone(), 0..3);
        prop_oneof![
            (
                prop::sample::select(vec![UnOp::Neg, UnOp::Not]),
                boxed.clone()
            )
                .prop_map(|(op, arg)| Expr::Unary { op, arg }),
            (
                prop::sample::select(BinOp::ALL.to_vec()),
                boxed.clone(),
                boxed.clone()
            )
                .prop_map(|(op, lhs, rhs)| Expr::Binary { op, lhs, rhs }),
            (ty(), boxed.clone()).prop_map(|(to, arg)| Expr::Cast { to, arg }),
            (func_name(), args.clone()).prop_map(|(func, args)| Expr::Call { func, args }),
            (prop::sample::select(LibFn::ALL.to_vec()), args.clone())
                .prop_map(|(func, args)| Expr::Lib { func, args }),
            (
                prop::sample::select(ReduceOp::ALL.to_vec()),
                boxed.clone(),
                prop::option::of(axis()),
                prop::option::of(Just(Accum::F80))
            )
                .prop_map(|(op, arg, axis, acc)| Expr::Reduce { op, arg, axis, acc }),
            (
                prop::sample::select(ScanOp::ALL.to_vec()),
                boxed.clone(),
                prop::option::of(Just(Accum::F80))
            )
                .prop_map(|(op, arg, acc)| Expr::Scan { op, arg, acc }),
            (array_type(), args.clone(), prop::option::of(boxed.clone())).prop_map(
                |(ty, dims, fill)| Expr::Alloc {
                    init: match fill {
                        Some(value) => AllocInit::Fill { value },
                        None => AllocInit::Zeros,
                    },
                    ty,
                    dims,
                }
            ),
            (boxed.clone(), axis()).prop_map(|(arg, axis)| Expr::Dim { arg, axis }),
            (
                prop::option::of(boxed.clone()),
                prop::option::of(boxed.clone()),
                prop::option::of(boxed.clone())
            )
                .prop_map(|(start, stop, step)| Expr::Range { start, stop, step }),
            args.clone().prop_map(|ranges| Expr::Domain { ranges }),
            args.clone().prop_map(|items| Expr::Tuple { items }),
            (boxed.clone(), axis()).prop_map(|(arg, index)| Expr::TupleGet { arg, index }),
            (func_name(), args.clone()).prop_map(|(func, args)| Expr::Map { func, args }),
            (boxed.clone(), args.clone(), flags()).prop_map(|(array, indices, flags)| {
                Expr::Index {
                    array,
                    indices,
                    flags,
                }
            }),
            (name(), args.clone(), boxed.clone()).prop_map(|(array, indices, value)| {
                Expr::AtomicAdd {
                    array,
                    indices,
                    value,
                }
            }),
            (name(), args, boxed.clone(), boxed).prop_map(|(array, indices, expected, new)| {
                Expr::AtomicCas {
                    array,
                    indices,
                    expected,
                    new,
                }
            }),
        ]
    })
}

fn lvalue() -> impl Strategy<Value = LValue> {
    prop_oneof![
        2 => name().prop_map(|name| LValue::Var { name }),
        1 => (name(), prop::collection::vec(expr(), 0..3), flags())
            .prop_map(|(array, indices, flags)| LValue::Index { array, indices, flags }),
    ]
}

fn loop_vars() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 0..3)
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let leaf = prop_oneof![
        3 => (prop::collection::vec(lvalue(), 0..3), expr()).prop_map(|(targets, value)| StmtKind::Assign { targets, value }),
        1 => Just(StmtKind::Break),
        1 => Just(StmtKind::Continue),
        1 => prop::collection::vec(expr(), 0..3).prop_map(|values| StmtKind::Return { values }),
        2 => expr().prop_map(|expr| StmtKind::Expr { expr }),
        1 => (name(), prop::collection::vec(expr(), 0..3)).prop_map(|(var, dims)| StmtKind::Alloc { var, dims }),
        1 => name().prop_map(|var| StmtKind::Free { var }),
    ];
    let leaf = (leaf, prop::option::of(1u32..100)).prop_map(|(kind, line)| Stmt { kind, line });
    leaf.prop_recursive(3, 16, 3, |s| {
        let block = (any::<bool>(), prop::collection::vec(s, 0..3))
            .prop_map(|(on_gpu, stmts)| Block { on_gpu, stmts });
        let kind =
            prop_oneof![
                block.clone().prop_map(StmtKind::Block),
                (expr(), block.clone(), prop::option::of(block.clone()))
                    .prop_map(|(cond, then, els)| StmtKind::If { cond, then, els }),
                (loop_vars(), expr(), block.clone())
                    .prop_map(|(vars, domain, body)| StmtKind::For { vars, domain, body }),
                (loop_vars(), expr(), block.clone())
                    .prop_map(|(vars, domain, body)| StmtKind::Parfor { vars, domain, body }),
                (expr(), block).prop_map(|(cond, body)| StmtKind::While { cond, body }),
            ];
        (kind, prop::option::of(1u32..100)).prop_map(|(kind, line)| Stmt { kind, line })
    })
}

fn function() -> impl Strategy<Value = Function> {
    let decls = prop::collection::vec((name(), ty()), 0..5);
    (
        func_name(),
        decls,
        prop::collection::vec(ty(), 0..2),
        prop::collection::vec(stmt(), 0..4),
    )
        .prop_map(|(fname, decls, results, body)| {
            // The first two declarations are parameters, the rest locals.
            let (params, locals) = decls.split_at(decls.len().min(2));
            Function {
                name: fname,
                params: params
                    .iter()
                    .map(|(n, t)| Param {
                        name: n.clone(),
                        ty: t.clone(),
                        restrict: false,
                    })
                    .collect(),
                results,
                locals: locals
                    .iter()
                    .map(|(n, t)| Local {
                        name: n.clone(),
                        ty: t.clone(),
                    })
                    .collect(),
                body,
                line: None,
            }
        })
}

fn module() -> impl Strategy<Value = Module> {
    (0u8..3, prop::collection::vec(function(), 0..3)).prop_map(|(index_base, functions)| Module {
        name: "m".to_string(),
        index_base,
        functions,
    })
}

/// The top-level expressions of a statement list (not nested ones: they may be void
/// calls in expression statements, which `expr_type` types as `void`, or open ranges).
fn top_expressions<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Expr>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Block(b) => top_expressions(&b.stmts, out),
            StmtKind::Assign { value, .. } => out.push(value),
            StmtKind::If { cond, then, els } => {
                out.push(cond);
                top_expressions(&then.stmts, out);
                if let Some(els) = els {
                    top_expressions(&els.stmts, out);
                }
            }
            StmtKind::For { domain, body, .. } | StmtKind::Parfor { domain, body, .. } => {
                out.push(domain);
                top_expressions(&body.stmts, out);
            }
            StmtKind::While { cond, body } => {
                out.push(cond);
                top_expressions(&body.stmts, out);
            }
            StmtKind::Return { values } => out.extend(values),
            StmtKind::Expr { expr } => out.push(expr),
            StmtKind::Alloc { dims, .. } => out.extend(dims),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Free { .. }
            | StmtKind::RefIncr { .. }
            | StmtKind::RefDecr { .. } => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_modules_get_an_answer(m in module()) {
        match verify_module(&m) {
            Ok(()) => {
                for f in &m.functions {
                    let mut exprs = Vec::new();
                    top_expressions(&f.body, &mut exprs);
                    for e in exprs {
                        prop_assert!(expr_type(&m, f, e).is_ok(), "accepted, but expr_type fails on {e:?}");
                    }
                }
            }
            Err(e) => {
                prop_assert_eq!(e.kind, ErrorKind::Type);
                let located = e.message.starts_with("module m: ")
                    || e.function.as_ref().is_some_and(|f| e.message.starts_with(&format!("{f}: ")));
                prop_assert!(located, "unlocated error: {}", e.message);
            }
        }
    }
}

/// A module whose `main` declares every name the generators use, and whose other
/// functions have fixed signatures, so that random expressions are often well-typed.
fn declared_module(e: &Expr) -> Module {
    let local = |name: &str, ty: Type| Local {
        name: name.to_string(),
        ty,
    };
    let param = |name: &str, ty: Type| Param {
        name: name.to_string(),
        ty,
        restrict: false,
    };
    let main = Function {
        name: "main".to_string(),
        params: vec![],
        results: vec![],
        locals: vec![
            local("a", Type::array(ScalarType::F64, 2, Layout::Col)),
            local("b", Type::array(ScalarType::I64, 1, Layout::Row)),
            local("i", Type::I64),
            local("j", Type::I32),
            local("x", Type::F64),
        ],
        body: vec![Stmt::new(StmtKind::Expr { expr: e.clone() })],
        line: None,
    };
    let callee = |name: &str, params: Vec<Param>, results: Vec<Type>| Function {
        name: name.to_string(),
        params,
        results,
        locals: vec![],
        body: vec![],
        line: None,
    };
    Module {
        name: "m".to_string(),
        index_base: 1,
        functions: vec![
            main,
            callee("f", vec![param("p", Type::F64)], vec![Type::F64]),
            callee(
                "g",
                vec![
                    param("p", Type::array(ScalarType::F64, 2, Layout::Strided)),
                    param("q", Type::I64),
                ],
                vec![Type::F64, Type::I64],
            ),
            callee("h", vec![], vec![]),
        ],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Whenever `(expr e)` verifies, `e` has a type, and a variable of that type can take
    /// it: expression typing and assignment agree.
    #[test]
    fn typed_expressions_can_be_assigned(e in expr()) {
        let mut m = declared_module(&e);
        if verify_module(&m).is_ok() {
            let ty = expr_type(&m, &m.functions[0], &e);
            prop_assert!(ty.is_ok(), "verified, but expr_type fails on {e:?}");
            let ty = ty.unwrap();
            if ty != Type::Void {
                let main = &mut m.functions[0];
                main.locals.push(Local { name: "tmp".to_string(), ty: ty.clone() });
                main.body = vec![Stmt::new(StmtKind::Assign {
                    targets: vec![LValue::Var { name: "tmp".to_string() }],
                    value: e.clone(),
                })];
                let r = verify_module(&m);
                prop_assert!(r.is_ok(), "{e:?} has type {ty} but cannot be assigned to it: {:?}", r.err().map(|e| e.message));
            }
        }
    }
}
