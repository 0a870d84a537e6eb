//! Verifier tests: modules built from ASTs, one rule per test, each with programs the
//! rule accepts and programs it rejects. Expected types follow docs/vrir-semantics.md by
//! hand.

use super::*;
use crate::vrir::ast::{
    Accum, AllocInit, BinOp, Block, IndexFlags, LValue, LibFn, Literal, Local, Param, ReduceOp, ScanOp, Stmt,
    StmtKind, UnOp,
};
use crate::vrir::types::ScalarType;

// ---------------------------------------------------------------- builders

/// A type from its text form: `f64`, `f64[2,col]`, `range`, `domain[2]`, `void`.
fn t(s: &str) -> Type {
    if let Some(e) = ScalarType::from_name(s) {
        return Type::scalar(e);
    }
    match s {
        "range" => return Type::Range,
        "void" => return Type::Void,
        _ => {}
    }
    let (head, rest) = s.split_once('[').expect("type text");
    let inner = rest.strip_suffix(']').expect("type text");
    if head == "domain" {
        return Type::Domain {
            ndims: inner.parse().unwrap(),
        };
    }
    let (n, l) = inner.split_once(',').expect("type text");
    Type::array(
        ScalarType::from_name(head).unwrap(),
        n.parse().unwrap(),
        Layout::from_name(l).unwrap(),
    )
}

fn at(s: &str) -> ArrayType {
    t(s).as_array().unwrap()
}

fn fun(
    name: &str,
    params: &[(&str, &str)],
    results: &[&str],
    locals: &[(&str, &str)],
    body: Vec<Stmt>,
) -> Function {
    Function {
        name: name.to_string(),
        params: params
            .iter()
            .map(|(n, ty)| Param {
                name: n.to_string(),
                ty: t(ty),
                restrict: false,
            })
            .collect(),
        results: results.iter().map(|ty| t(ty)).collect(),
        locals: locals
            .iter()
            .map(|(n, ty)| Local {
                name: n.to_string(),
                ty: t(ty),
            })
            .collect(),
        body,
        line: None,
    }
}

fn module(functions: Vec<Function>) -> Module {
    Module {
        name: "m".to_string(),
        index_base: 0,
        functions,
    }
}

fn st(kind: StmtKind) -> Stmt {
    Stmt::new(kind)
}
fn at_line(mut s: Stmt, line: u32) -> Stmt {
    s.line = Some(line);
    s
}
fn blk(stmts: Vec<Stmt>) -> Block {
    Block {
        on_gpu: false,
        stmts,
    }
}
fn block(stmts: Vec<Stmt>) -> Stmt {
    st(StmtKind::Block(blk(stmts)))
}
fn gpu(stmts: Vec<Stmt>) -> Stmt {
    st(StmtKind::Block(Block {
        on_gpu: true,
        stmts,
    }))
}
fn set(name: &str, e: Expr) -> Stmt {
    st(StmtKind::Assign {
        targets: vec![LValue::Var {
            name: name.to_string(),
        }],
        value: e,
    })
}
fn set_at(name: &str, indices: Vec<Expr>, e: Expr) -> Stmt {
    set_at_flags(name, indices, IndexFlags::default(), e)
}
fn set_at_flags(name: &str, indices: Vec<Expr>, flags: IndexFlags, e: Expr) -> Stmt {
    st(StmtKind::Assign {
        targets: vec![LValue::Index {
            array: name.to_string(),
            indices,
            flags,
        }],
        value: e,
    })
}
fn mset(names: &[&str], e: Expr) -> Stmt {
    st(StmtKind::Assign {
        targets: names
            .iter()
            .map(|n| LValue::Var {
                name: n.to_string(),
            })
            .collect(),
        value: e,
    })
}
fn ret(values: Vec<Expr>) -> Stmt {
    st(StmtKind::Return { values })
}
fn eval(e: Expr) -> Stmt {
    st(StmtKind::Expr { expr: e })
}
fn for_(vars: &[&str], domain: Expr, body: Vec<Stmt>) -> Stmt {
    st(StmtKind::For {
        vars: vars.iter().map(|v| v.to_string()).collect(),
        domain,
        body: blk(body),
    })
}
fn parfor(vars: &[&str], domain: Expr, body: Vec<Stmt>) -> Stmt {
    st(StmtKind::Parfor {
        vars: vars.iter().map(|v| v.to_string()).collect(),
        domain,
        body: blk(body),
    })
}
fn while_(cond: Expr, body: Vec<Stmt>) -> Stmt {
    st(StmtKind::While {
        cond,
        body: blk(body),
    })
}
fn if_(cond: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>) -> Stmt {
    st(StmtKind::If {
        cond,
        then: blk(then),
        els: els.map(blk),
    })
}
fn brk() -> Stmt {
    st(StmtKind::Break)
}
fn cont() -> Stmt {
    st(StmtKind::Continue)
}

fn v(name: &str) -> Expr {
    Expr::var(name)
}
fn i(n: i64) -> Expr {
    Expr::i64(n)
}
fn i32c(n: i32) -> Expr {
    Expr::lit(Literal::I32(n))
}
fn f(x: f64) -> Expr {
    Expr::f64(x)
}
fn b(x: bool) -> Expr {
    Expr::lit(Literal::Bool(x))
}
fn bin(op: BinOp, a: Expr, c: Expr) -> Expr {
    Expr::binary(op, a, c)
}
fn un(op: UnOp, a: Expr) -> Expr {
    Expr::Unary {
        op,
        arg: Box::new(a),
    }
}
fn lib(func: LibFn, args: Vec<Expr>) -> Expr {
    Expr::Lib { func, args }
}
fn call(func: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        func: func.to_string(),
        args,
    }
}
fn map(func: &str, args: Vec<Expr>) -> Expr {
    Expr::Map {
        func: func.to_string(),
        args,
    }
}
fn cast(to: &str, e: Expr) -> Expr {
    Expr::Cast {
        to: t(to),
        arg: Box::new(e),
    }
}
fn reduce(op: ReduceOp, e: Expr, axis: Option<u32>) -> Expr {
    Expr::Reduce {
        op,
        arg: Box::new(e),
        axis,
        acc: None,
    }
}
fn reduce_acc(op: ReduceOp, e: Expr, axis: Option<u32>) -> Expr {
    Expr::Reduce {
        op,
        arg: Box::new(e),
        axis,
        acc: Some(Accum::F80),
    }
}
fn scan(op: ScanOp, e: Expr, acc: Option<Accum>) -> Expr {
    Expr::Scan {
        op,
        arg: Box::new(e),
        acc,
    }
}
fn alloc(init: AllocInit, ty: &str, dims: Vec<Expr>) -> Expr {
    Expr::Alloc {
        init,
        ty: at(ty),
        dims,
    }
}
fn dim(e: Expr, axis: u32) -> Expr {
    Expr::Dim {
        arg: Box::new(e),
        axis,
    }
}
fn range(start: Option<Expr>, stop: Option<Expr>, step: Option<Expr>) -> Expr {
    Expr::Range {
        start: start.map(Box::new),
        stop: stop.map(Box::new),
        step: step.map(Box::new),
    }
}
fn rng(a: i64, c: i64) -> Expr {
    range(Some(i(a)), Some(i(c)), None)
}
fn all() -> Expr {
    range(None, None, None)
}
fn domain(ranges: Vec<Expr>) -> Expr {
    Expr::Domain { ranges }
}
fn tuple(items: Vec<Expr>) -> Expr {
    Expr::Tuple { items }
}
fn tget(e: Expr, index: u32) -> Expr {
    Expr::TupleGet {
        arg: Box::new(e),
        index,
    }
}
fn idx(a: Expr, indices: Vec<Expr>) -> Expr {
    idx_flags(a, indices, IndexFlags::default())
}
fn idx_flags(a: Expr, indices: Vec<Expr>, flags: IndexFlags) -> Expr {
    Expr::Index {
        array: Box::new(a),
        indices,
        flags,
    }
}
fn view() -> IndexFlags {
    IndexFlags {
        view: true,
        ..IndexFlags::default()
    }
}
fn flat() -> IndexFlags {
    IndexFlags {
        flatten: true,
        ..IndexFlags::default()
    }
}
fn atomic_add(array: &str, indices: Vec<Expr>, value: Expr) -> Expr {
    Expr::AtomicAdd {
        array: array.to_string(),
        indices,
        value: Box::new(value),
    }
}
fn atomic_cas(array: &str, indices: Vec<Expr>, expected: Expr, new: Expr) -> Expr {
    Expr::AtomicCas {
        array: array.to_string(),
        indices,
        expected: Box::new(expected),
        new: Box::new(new),
    }
}

// ---------------------------------------------------------------- checks

/// The verifier's verdict; every rejection must be a type error.
fn verdict(m: &Module) -> Result<(), String> {
    verify_module(m).map_err(|e| {
        assert_eq!(e.kind, ErrorKind::Type, "{e:?}");
        e.message
    })
}

#[track_caller]
fn accepts(m: &Module) {
    if let Err(msg) = verdict(m) {
        panic!("rejected a valid module: {msg}");
    }
}

#[track_caller]
fn rejects(m: &Module, needle: &str) -> String {
    match verdict(m) {
        Ok(()) => panic!("accepted an invalid module; expected an error containing {needle:?}"),
        Err(msg) => {
            assert!(
                msg.contains(needle),
                "error {msg:?} does not contain {needle:?}"
            );
            msg
        }
    }
}

/// A module of one void function `f` with these locals and this body.
fn body(locals: &[(&str, &str)], body: Vec<Stmt>) -> Module {
    module(vec![fun("f", &[], &[], locals, body)])
}

#[track_caller]
fn body_ok(locals: &[(&str, &str)], stmts: Vec<Stmt>) {
    accepts(&body(locals, stmts));
}

#[track_caller]
fn body_err(locals: &[(&str, &str)], stmts: Vec<Stmt>, needle: &str) -> String {
    rejects(&body(locals, stmts), needle)
}

/// The type of `e` among these locals, checking that the verifier accepts `(expr e)`.
#[track_caller]
fn type_of(locals: &[(&str, &str)], e: Expr) -> Type {
    let m = body(locals, vec![eval(e.clone())]);
    accepts(&m);
    expr_type(&m, &m.functions[0], &e).unwrap()
}

/// Checks that `(expr e)` among these locals is rejected with a message containing `needle`.
#[track_caller]
fn expr_err(locals: &[(&str, &str)], e: Expr, needle: &str) -> String {
    body_err(locals, vec![eval(e)], needle)
}

const SCALARS: &[(&str, &str)] = &[
    ("b", "bool"),
    ("n", "i32"),
    ("k", "i64"),
    ("s", "f32"),
    ("x", "f64"),
    ("y", "f64"),
    ("z", "c64"),
    ("w", "c128"),
    ("i", "i64"),
    ("j", "i64"),
    ("r", "range"),
];

/// Scalars as above plus arrays of several element types, ranks and layouts.
fn vars() -> Vec<(&'static str, &'static str)> {
    let mut all = SCALARS.to_vec();
    all.extend_from_slice(&[
        ("A", "f64[2,col]"),
        ("B", "f64[2,row]"),
        ("S", "f64[2,strided]"),
        ("u", "f64[1,row]"),
        ("uc", "f64[1,col]"),
        ("us", "f64[1,strided]"),
        ("T", "f64[3,row]"),
        ("I", "i64[1,row]"),
        ("I2", "i64[2,row]"),
        ("M", "bool[1,row]"),
        ("MB", "bool[2,col]"),
        ("Z", "c128[2,col]"),
        ("F", "f32[1,row]"),
        ("N", "i32[2,row]"),
    ]);
    all
}

// ---------------------------------------------------------------- module level

#[test]
fn empty_module_and_empty_function_are_accepted() {
    accepts(&module(vec![]));
    accepts(&module(vec![fun("f", &[], &[], &[], vec![])]));
    // A non-void function without return fails at run time, not in the verifier.
    accepts(&module(vec![fun(
        "g",
        &[("x", "f64")],
        &["f64"],
        &[],
        vec![],
    )]));
}

#[test]
fn index_base_is_0_or_1() {
    let mut m = module(vec![]);
    m.index_base = 1;
    accepts(&m);
    m.index_base = 2;
    let e = verify_module(&m).unwrap_err();
    assert_eq!(e.message, "module m: index_base must be 0 or 1, got 2");
    assert_eq!(e.kind, ErrorKind::Type);
}

#[test]
fn function_names_are_unique() {
    let m = module(vec![
        fun("f", &[], &[], &[], vec![]),
        fun("g", &[], &[], &[], vec![]),
        fun("f", &[], &[], &[], vec![]),
    ]);
    assert_eq!(
        rejects(&m, "duplicate"),
        "module m: duplicate function name f"
    );
}

#[test]
fn variable_names_are_unique() {
    accepts(&module(vec![fun(
        "f",
        &[("x", "f64")],
        &[],
        &[("y", "f64")],
        vec![],
    )]));
    let m = module(vec![fun(
        "f",
        &[("x", "f64")],
        &[],
        &[("x", "i64")],
        vec![],
    )]);
    let e = verify_module(&m).unwrap_err();
    assert_eq!(e.message, "f: duplicate variable name x");
    assert_eq!(e.function.as_deref(), Some("f"));
    rejects(
        &module(vec![fun(
            "f",
            &[("x", "f64"), ("x", "f64")],
            &[],
            &[],
            vec![],
        )]),
        "duplicate variable name x",
    );
    rejects(
        &module(vec![fun(
            "f",
            &[],
            &[],
            &[("y", "f64"), ("y", "f64")],
            vec![],
        )]),
        "duplicate variable name y",
    );
}

#[test]
fn declared_types_must_be_value_types() {
    accepts(&module(vec![fun(
        "f",
        &[("r", "range"), ("d", "domain[2]")],
        &["range"],
        &[("a", "c64[4,strided]")],
        vec![],
    )]));
    let mut tupled = fun("f", &[], &[], &[], vec![]);
    tupled.locals.push(Local {
        name: "p".into(),
        ty: Type::Tuple {
            items: vec![Type::I64, t("f64[1,row]")],
        },
    });
    accepts(&module(vec![tupled]));

    let m = module(vec![fun("f", &[("x", "f64[0,row]")], &[], &[], vec![])]);
    let e = verify_module(&m).unwrap_err();
    assert_eq!(
        e.message,
        "f: parameter x: f64[0,row] has no dimensions; an array has at least 1"
    );
    rejects(
        &module(vec![fun("f", &[], &["f64[0,col]"], &[], vec![])]),
        "result 1: f64[0,col] has no dimensions",
    );
    rejects(
        &module(vec![fun("f", &[], &[], &[("d", "domain[0]")], vec![])]),
        "local d: domain[0] has no dimensions",
    );
    rejects(
        &module(vec![fun("f", &[], &[], &[("v", "void")], vec![])]),
        "local v: void is not the type of a value",
    );
    rejects(
        &module(vec![fun("f", &[], &["void"], &[], vec![])]),
        "result 1: void is not the type of a value",
    );
    let mut func_typed = fun("f", &[], &[], &[], vec![]);
    func_typed.locals.push(Local {
        name: "g".into(),
        ty: Type::Func {
            params: vec![Type::F64],
            results: vec![Type::F64],
        },
    });
    rejects(
        &module(vec![func_typed]),
        "local g: (fn (f64) (f64)) is not the type of a value",
    );
    let mut bad_tuple = fun("f", &[], &[], &[], vec![]);
    bad_tuple.locals.push(Local {
        name: "p".into(),
        ty: Type::Tuple {
            items: vec![Type::I64, t("i64[0,row]")],
        },
    });
    rejects(
        &module(vec![bad_tuple]),
        "local p: i64[0,row] has no dimensions",
    );
}

#[test]
fn signatures_are_checked_before_bodies() {
    // f's body calls g, whose signature is bad: the report names g's declaration.
    let m = module(vec![
        fun("f", &[], &[], &[], vec![eval(call("g", vec![]))]),
        fun("g", &[("a", "f64[0,row]")], &[], &[], vec![]),
    ]);
    rejects(&m, "g: parameter a");
}

// ---------------------------------------------------------------- constants, variables

#[test]
fn constants_have_their_own_types() {
    let cases = [
        (Literal::Bool(true), "bool"),
        (Literal::I32(1), "i32"),
        (Literal::I64(1), "i64"),
        (Literal::F32(1.0), "f32"),
        (Literal::F64(1.0), "f64"),
        (Literal::C64([1.0, 2.0]), "c64"),
        (Literal::C128([1.0, 2.0]), "c128"),
    ];
    for (lit, ty) in cases {
        assert_eq!(type_of(&[], Expr::lit(lit)), t(ty));
    }
}

#[test]
fn variables_must_be_declared() {
    assert_eq!(type_of(&vars(), v("A")), t("f64[2,col]"));
    let msg = expr_err(&[], v("q"), "undeclared variable q");
    assert_eq!(msg, "f: stmt 1 (expr): undeclared variable q");
    body_err(&[], vec![set("q", i(1))], "undeclared variable q");
    body_err(
        &[],
        vec![st(StmtKind::Free { var: "q".into() })],
        "undeclared variable q",
    );
    body_ok(
        &[("a", "f64[1,row]")],
        vec![
            st(StmtKind::RefIncr { var: "a".into() }),
            st(StmtKind::RefDecr { var: "a".into() }),
            st(StmtKind::Free { var: "a".into() }),
        ],
    );
}

// ---------------------------------------------------------------- operators

#[test]
fn arithmetic_on_scalars_needs_one_numeric_type() {
    let vs = vars();
    for op in [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div] {
        assert_eq!(type_of(&vs, bin(op, v("x"), v("y"))), Type::F64);
        assert_eq!(type_of(&vs, bin(op, v("n"), i32c(2))), Type::I32);
        assert_eq!(type_of(&vs, bin(op, v("w"), v("w"))), Type::C128);
    }
    let msg = expr_err(&vs, bin(BinOp::Add, v("x"), v("k")), "one element type");
    assert_eq!(
        msg,
        "f: stmt 1 (expr): `+` needs operands of one element type, got f64 and i64"
    );
    expr_err(
        &vs,
        bin(BinOp::Mul, v("s"), v("x")),
        "`*` needs operands of one element type, got f32 and f64",
    );
    expr_err(
        &vs,
        bin(BinOp::Add, v("b"), v("b")),
        "`+` needs numeric operands, got bool and bool",
    );
}

#[test]
fn element_wise_results_take_the_first_array_layout() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, bin(BinOp::Add, v("A"), v("x"))),
        t("f64[2,col]")
    );
    assert_eq!(
        type_of(&vs, bin(BinOp::Add, v("x"), v("B"))),
        t("f64[2,row]")
    );
    assert_eq!(
        type_of(&vs, bin(BinOp::Sub, v("A"), v("B"))),
        t("f64[2,col]")
    );
    assert_eq!(
        type_of(&vs, bin(BinOp::Sub, v("B"), v("A"))),
        t("f64[2,row]")
    );
    // strided becomes row: the result is a new array
    assert_eq!(
        type_of(&vs, bin(BinOp::Mul, v("S"), v("A"))),
        t("f64[2,row]")
    );
    assert_eq!(
        type_of(&vs, bin(BinOp::Mul, v("x"), v("S"))),
        t("f64[2,row]")
    );
    assert_eq!(type_of(&vs, un(UnOp::Neg, v("S"))), t("f64[2,row]"));
    assert_eq!(
        type_of(&vs, bin(BinOp::Lt, v("A"), v("x"))),
        t("bool[2,col]")
    );
}

#[test]
fn element_wise_arrays_need_one_rank() {
    let vs = vars();
    expr_err(
        &vs,
        bin(BinOp::Add, v("A"), v("u")),
        "`+` needs arrays of one rank, got f64[2,col] and f64[1,row]",
    );
    expr_err(
        &vs,
        bin(BinOp::Add, v("A"), v("I2")),
        "one element type, got f64[2,col] and i64[2,row]",
    );
    expr_err(
        &vs,
        bin(BinOp::Add, v("x"), v("r")),
        "`+` needs scalar or array operands, got range",
    );
    expr_err(
        &vs,
        bin(BinOp::Eq, tuple(vec![i(1)]), i(1)),
        "`==` needs scalar or array operands, got (tuple i64)",
    );
}

#[test]
fn idiv_and_mod_take_integers_or_floats() {
    let vs = vars();
    assert_eq!(type_of(&vs, bin(BinOp::IDiv, v("k"), i(2))), Type::I64);
    assert_eq!(type_of(&vs, bin(BinOp::Mod, v("x"), f(2.0))), Type::F64);
    assert_eq!(type_of(&vs, bin(BinOp::Mod, v("I"), i(3))), t("i64[1,row]"));
    expr_err(
        &vs,
        bin(BinOp::Mod, v("w"), v("w")),
        "`mod` needs integer or float operands, got c128 and c128",
    );
    expr_err(
        &vs,
        bin(BinOp::IDiv, v("b"), v("b")),
        "`idiv` needs integer or float operands",
    );
}

#[test]
fn comparisons_give_bool() {
    let vs = vars();
    assert_eq!(type_of(&vs, bin(BinOp::Le, v("x"), v("y"))), Type::BOOL);
    assert_eq!(type_of(&vs, bin(BinOp::Eq, v("w"), v("w"))), Type::BOOL);
    assert_eq!(type_of(&vs, bin(BinOp::Ne, v("b"), b(false))), Type::BOOL);
    assert_eq!(
        type_of(&vs, bin(BinOp::Eq, v("M"), b(true))),
        t("bool[1,row]")
    );
    expr_err(
        &vs,
        bin(BinOp::Lt, v("w"), v("w")),
        "`<` needs integer or float operands, got c128 and c128",
    );
    expr_err(
        &vs,
        bin(BinOp::Gt, v("b"), v("b")),
        "`>` needs integer or float operands",
    );
    expr_err(&vs, bin(BinOp::Eq, v("x"), v("s")), "one element type");
}

#[test]
fn logical_operators_take_bool() {
    let vs = vars();
    assert_eq!(type_of(&vs, bin(BinOp::And, v("b"), b(true))), Type::BOOL);
    assert_eq!(
        type_of(&vs, bin(BinOp::Or, v("M"), v("M"))),
        t("bool[1,row]")
    );
    assert_eq!(type_of(&vs, un(UnOp::Not, v("MB"))), t("bool[2,col]"));
    expr_err(
        &vs,
        bin(BinOp::And, v("k"), v("k")),
        "`and` needs bool operands, got i64 and i64",
    );
    expr_err(
        &vs,
        un(UnOp::Not, v("k")),
        "`not` needs a bool operand, got i64",
    );
}

#[test]
fn neg_takes_numbers() {
    let vs = vars();
    assert_eq!(type_of(&vs, un(UnOp::Neg, v("z"))), Type::C64);
    assert_eq!(type_of(&vs, un(UnOp::Neg, v("I"))), t("i64[1,row]"));
    expr_err(
        &vs,
        un(UnOp::Neg, v("b")),
        "`neg` needs a numeric operand, got bool",
    );
    expr_err(
        &vs,
        un(UnOp::Neg, v("r")),
        "`neg` needs scalar or array operands, got range",
    );
}

// ---------------------------------------------------------------- cast

#[test]
fn casts_between_scalars() {
    let vs = vars();
    assert_eq!(type_of(&vs, cast("i32", v("x"))), Type::I32);
    assert_eq!(type_of(&vs, cast("f64", v("b"))), Type::F64);
    assert_eq!(type_of(&vs, cast("bool", v("x"))), Type::BOOL);
    assert_eq!(type_of(&vs, cast("c128", v("k"))), Type::C128);
    assert_eq!(type_of(&vs, cast("c64", v("w"))), Type::C64);
    expr_err(
        &vs,
        cast("f64", v("w")),
        "cannot cast c128 to f64: complex to non-complex needs `real`",
    );
    expr_err(&vs, cast("bool", v("z")), "cannot cast c64 to bool");
}

#[test]
fn casts_between_arrays_keep_the_rank() {
    let vs = vars();
    assert_eq!(type_of(&vs, cast("f32[2,row]", v("A"))), t("f32[2,row]"));
    assert_eq!(type_of(&vs, cast("f64[2,col]", v("B"))), t("f64[2,col]"));
    expr_err(
        &vs,
        cast("f64[1,row]", v("A")),
        "cannot cast f64[2,col] to f64[1,row]: the ranks differ",
    );
    expr_err(
        &vs,
        cast("f64[2,row]", v("x")),
        "cannot cast f64 to f64[2,row]",
    );
    expr_err(&vs, cast("f64", v("A")), "cannot cast f64[2,col] to f64");
    expr_err(&vs, cast("f64[2,row]", v("Z")), "complex to non-complex");
    expr_err(&vs, cast("range", v("k")), "cannot cast i64 to range");
    expr_err(
        &vs,
        cast("f64[0,row]", v("A")),
        "f64[0,row] has no dimensions",
    );
}

// ---------------------------------------------------------------- library functions

#[test]
fn float_math_takes_floats_or_complex() {
    let vs = vars();
    for func in [
        LibFn::Sqrt,
        LibFn::Exp,
        LibFn::Log,
        LibFn::Log10,
        LibFn::Sin,
        LibFn::Cos,
        LibFn::Tan,
        LibFn::Asin,
        LibFn::Acos,
        LibFn::Atan,
        LibFn::Sinh,
        LibFn::Cosh,
        LibFn::Tanh,
    ] {
        assert_eq!(type_of(&vs, lib(func, vec![v("s")])), Type::F32);
        assert_eq!(type_of(&vs, lib(func, vec![v("z")])), Type::C64);
        assert_eq!(type_of(&vs, lib(func, vec![v("S")])), t("f64[2,row]"));
    }
    expr_err(
        &vs,
        lib(LibFn::Sqrt, vec![v("k")]),
        "`sqrt` needs a float or complex operand, got i64",
    );
    expr_err(
        &vs,
        lib(LibFn::Exp, vec![v("b")]),
        "`exp` needs a float or complex operand, got bool",
    );
}

#[test]
fn abs_real_imag_conj_types() {
    let vs = vars();
    assert_eq!(type_of(&vs, lib(LibFn::Abs, vec![v("n")])), Type::I32);
    assert_eq!(type_of(&vs, lib(LibFn::Abs, vec![v("w")])), Type::F64);
    assert_eq!(type_of(&vs, lib(LibFn::Abs, vec![v("Z")])), t("f64[2,col]"));
    assert_eq!(type_of(&vs, lib(LibFn::Real, vec![v("z")])), Type::F32);
    assert_eq!(type_of(&vs, lib(LibFn::Imag, vec![v("w")])), Type::F64);
    assert_eq!(type_of(&vs, lib(LibFn::Imag, vec![v("x")])), Type::F64);
    assert_eq!(type_of(&vs, lib(LibFn::Real, vec![v("k")])), Type::I64);
    assert_eq!(type_of(&vs, lib(LibFn::Conj, vec![v("w")])), Type::C128);
    assert_eq!(type_of(&vs, lib(LibFn::Conj, vec![v("x")])), Type::F64);
    expr_err(
        &vs,
        lib(LibFn::Abs, vec![v("b")]),
        "`abs` needs a numeric operand, got bool",
    );
    expr_err(
        &vs,
        lib(LibFn::Real, vec![v("M")]),
        "`real` needs a numeric operand, got bool[1,row]",
    );
}

#[test]
fn rounding_and_classification() {
    let vs = vars();
    for func in [LibFn::Floor, LibFn::Ceil, LibFn::Round, LibFn::Trunc] {
        assert_eq!(type_of(&vs, lib(func, vec![v("x")])), Type::F64);
        assert_eq!(type_of(&vs, lib(func, vec![v("k")])), Type::I64);
    }
    expr_err(
        &vs,
        lib(LibFn::Floor, vec![v("w")]),
        "`floor` needs an integer or float operand, got c128",
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::IsNan, vec![v("A")])),
        t("bool[2,col]")
    );
    assert_eq!(type_of(&vs, lib(LibFn::IsInf, vec![v("k")])), Type::BOOL);
    assert_eq!(type_of(&vs, lib(LibFn::IsNan, vec![v("w")])), Type::BOOL);
    expr_err(
        &vs,
        lib(LibFn::IsNan, vec![v("b")]),
        "`isnan` needs a numeric operand, got bool",
    );
}

#[test]
fn two_argument_math() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, lib(LibFn::Atan2, vec![v("x"), v("y")])),
        Type::F64
    );
    expr_err(
        &vs,
        lib(LibFn::Atan2, vec![v("k"), v("k")]),
        "`atan2` needs float operands, got i64 and i64",
    );
    assert_eq!(type_of(&vs, lib(LibFn::Pow, vec![v("k"), i(2)])), Type::I64);
    assert_eq!(
        type_of(&vs, lib(LibFn::Pow, vec![v("w"), v("w")])),
        Type::C128
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Pow, vec![v("A"), f(2.0)])),
        t("f64[2,col]")
    );
    expr_err(
        &vs,
        lib(LibFn::Pow, vec![v("x"), i(2)]),
        "`pow` needs operands of one element type, got f64 and i64",
    );
    for func in [LibFn::Min, LibFn::Max, LibFn::Rem] {
        assert_eq!(
            type_of(&vs, lib(func, vec![v("x"), v("u")])),
            t("f64[1,row]")
        );
        assert_eq!(type_of(&vs, lib(func, vec![v("n"), i32c(1)])), Type::I32);
        expr_err(
            &vs,
            lib(func, vec![v("w"), v("w")]),
            "needs integer or float operands",
        );
    }
    expr_err(
        &vs,
        lib(LibFn::Min, vec![v("A"), v("T")]),
        "`min` needs arrays of one rank",
    );
}

#[test]
fn complex_builds_from_two_floats() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, lib(LibFn::Complex, vec![v("s"), v("s")])),
        Type::C64
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Complex, vec![v("A"), f(0.0)])),
        t("c128[2,col]")
    );
    expr_err(
        &vs,
        lib(LibFn::Complex, vec![v("k"), v("k")]),
        "`complex` needs float operands",
    );
    expr_err(
        &vs,
        lib(LibFn::Complex, vec![v("s"), v("x")]),
        "one element type",
    );
}

#[test]
fn library_arity_is_checked() {
    let vs = vars();
    expr_err(
        &vs,
        lib(LibFn::Sqrt, vec![v("x"), v("x")]),
        "`sqrt` takes 1 argument, got 2",
    );
    expr_err(
        &vs,
        lib(LibFn::Pow, vec![v("x")]),
        "`pow` takes 2 arguments, got 1",
    );
    expr_err(
        &vs,
        lib(LibFn::Matmul, vec![]),
        "`matmul` takes 2 arguments, got 0",
    );
}

#[test]
fn matmul_shapes() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("A"), v("B")])),
        t("f64[2,col]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("S"), v("A")])),
        t("f64[2,row]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("A"), v("u")])),
        t("f64[1,col]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("uc"), v("B")])),
        t("f64[1,row]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("us"), v("A")])),
        t("f64[1,col]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("u"), v("uc")])),
        Type::F64
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Matmul, vec![v("Z"), v("Z")])),
        t("c128[2,col]")
    );
    expr_err(
        &vs,
        lib(LibFn::Matmul, vec![v("T"), v("A")]),
        "`matmul` needs 1-D or 2-D arrays, got f64[3,row] and f64[2,col]",
    );
    expr_err(
        &vs,
        lib(LibFn::Matmul, vec![v("A"), v("Z")]),
        "`matmul` needs operands of one element type",
    );
    expr_err(
        &vs,
        lib(LibFn::Matmul, vec![v("M"), v("M")]),
        "`matmul` needs numeric operands",
    );
    expr_err(
        &vs,
        lib(LibFn::Matmul, vec![v("x"), v("A")]),
        "`matmul` needs an array, got f64",
    );
}

#[test]
fn transpose_copy_len_ndims() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, lib(LibFn::Transpose, vec![v("A")])),
        t("f64[2,col]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Transpose, vec![v("S")])),
        t("f64[2,row]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Transpose, vec![v("M")])),
        t("bool[1,row]")
    );
    expr_err(
        &vs,
        lib(LibFn::Transpose, vec![v("T")]),
        "`transpose` needs a 1-D or 2-D array, got f64[3,row]",
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Copy, vec![v("S")])),
        t("f64[2,strided]")
    );
    assert_eq!(
        type_of(&vs, lib(LibFn::Copy, vec![v("MB")])),
        t("bool[2,col]")
    );
    expr_err(
        &vs,
        lib(LibFn::Copy, vec![v("x")]),
        "`copy` needs an array, got f64",
    );
    assert_eq!(type_of(&vs, lib(LibFn::Len, vec![v("T")])), Type::I64);
    assert_eq!(type_of(&vs, lib(LibFn::Ndims, vec![v("M")])), Type::I64);
    expr_err(
        &vs,
        lib(LibFn::Len, vec![v("k")]),
        "`len` needs an array, got i64",
    );
    expr_err(
        &vs,
        lib(LibFn::Ndims, vec![v("r")]),
        "`ndims` needs an array, got range",
    );
}

// ---------------------------------------------------------------- reductions, dim

#[test]
fn reductions_over_everything() {
    let vs = vars();
    assert_eq!(type_of(&vs, reduce(ReduceOp::Sum, v("A"), None)), Type::F64);
    assert_eq!(
        type_of(&vs, reduce(ReduceOp::Prod, v("Z"), None)),
        Type::C128
    );
    assert_eq!(type_of(&vs, reduce(ReduceOp::Min, v("I"), None)), Type::I64);
    assert_eq!(type_of(&vs, reduce(ReduceOp::Max, v("F"), None)), Type::F32);
    expr_err(
        &vs,
        reduce(ReduceOp::Max, v("Z"), None),
        "`amax` needs an integer or float array, got c128[2,col]",
    );
    expr_err(
        &vs,
        reduce(ReduceOp::Sum, v("M"), None),
        "`sum` needs a numeric array, got bool[1,row]",
    );
    expr_err(
        &vs,
        reduce(ReduceOp::Sum, v("x"), None),
        "`sum` needs an array, got f64",
    );
}

#[test]
fn reductions_along_an_axis() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, reduce(ReduceOp::Sum, v("A"), Some(1))),
        t("f64[1,col]")
    );
    assert_eq!(
        type_of(&vs, reduce(ReduceOp::Sum, v("T"), Some(0))),
        t("f64[2,row]")
    );
    assert_eq!(
        type_of(&vs, reduce(ReduceOp::Min, v("S"), Some(0))),
        t("f64[1,row]")
    );
    assert_eq!(
        type_of(&vs, reduce(ReduceOp::Prod, v("u"), Some(0))),
        Type::F64
    );
    expr_err(
        &vs,
        reduce(ReduceOp::Sum, v("A"), Some(2)),
        "`sum` axis 2 is out of range for f64[2,col]",
    );
    expr_err(
        &vs,
        reduce(ReduceOp::Sum, v("u"), Some(u32::MAX)),
        "axis 4294967295 is out of range",
    );
}

#[test]
fn accumulator_types_hold_every_element_exactly() {
    let vs = vars();
    assert_eq!(type_of(&vs, reduce_acc(ReduceOp::Sum, v("A"), None)), Type::F64);
    assert_eq!(type_of(&vs, reduce_acc(ReduceOp::Prod, v("u"), None)), Type::F64);
    assert_eq!(
        type_of(&vs, reduce_acc(ReduceOp::Sum, v("A"), Some(0))),
        t("f64[1,col]")
    );
    expr_err(
        &vs,
        reduce_acc(ReduceOp::Sum, v("F"), None),
        "`sum` with accumulator type f80 needs an f64 or c128 array, got f32[1,row]",
    );
    expr_err(
        &vs,
        reduce_acc(ReduceOp::Sum, v("I"), None),
        "`sum` with accumulator type f80 needs an f64 or c128 array, got i64[1,row]",
    );
    assert_eq!(type_of(&vs, reduce_acc(ReduceOp::Prod, v("Z"), None)), Type::C128);
    expr_err(
        &vs,
        reduce_acc(ReduceOp::Min, v("u"), None),
        "`amin` takes no accumulator type (`:acc f80`)",
    );
}

#[test]
fn means_take_floats_and_the_refined_mean_no_axis() {
    let vs = vars();
    assert_eq!(type_of(&vs, reduce(ReduceOp::Mean, v("F"), None)), Type::F32);
    assert_eq!(
        type_of(&vs, reduce_acc(ReduceOp::Mean, v("A"), Some(1))),
        t("f64[1,col]")
    );
    assert_eq!(type_of(&vs, reduce_acc(ReduceOp::MeanRefined, v("A"), None)), Type::F64);
    expr_err(
        &vs,
        reduce(ReduceOp::Mean, v("I"), None),
        "`mean` needs a float or complex array, got i64[1,row]",
    );
    assert_eq!(type_of(&vs, reduce_acc(ReduceOp::MeanRefined, v("Z"), None)), Type::C128);
    expr_err(
        &vs,
        reduce(ReduceOp::MeanRefined, v("I2"), None),
        "`mean-refined` needs a float or complex array, got i64[2,row]",
    );
    expr_err(
        &vs,
        reduce(ReduceOp::MeanRefined, v("A"), Some(0)),
        "`mean-refined` reduces a whole array: it takes no axis",
    );
}

#[test]
fn scans_take_numeric_vectors() {
    let vs = vars();
    assert_eq!(type_of(&vs, scan(ScanOp::Sum, v("u"), Some(Accum::F80))), t("f64[1,row]"));
    assert_eq!(type_of(&vs, scan(ScanOp::Prod, v("us"), None)), t("f64[1,row]"));
    assert_eq!(type_of(&vs, scan(ScanOp::Sum, v("uc"), None)), t("f64[1,col]"));
    assert_eq!(type_of(&vs, scan(ScanOp::Sum, v("I"), None)), t("i64[1,row]"));
    expr_err(
        &vs,
        scan(ScanOp::Sum, v("A"), None),
        "`cumsum` needs a numeric vector (rank 1), got f64[2,col]",
    );
    expr_err(
        &vs,
        scan(ScanOp::Prod, v("M"), None),
        "`cumprod` needs a numeric vector (rank 1), got bool[1,row]",
    );
    expr_err(
        &vs,
        scan(ScanOp::Sum, v("I"), Some(Accum::F80)),
        "`cumsum` with accumulator type f80 needs an f64 array, got i64[1,row]",
    );
    expr_err(&vs, scan(ScanOp::Sum, v("x"), None), "`cumsum` needs an array, got f64");
}

#[test]
fn dim_axis_is_below_the_rank() {
    let vs = vars();
    assert_eq!(type_of(&vs, dim(v("T"), 2)), Type::I64);
    expr_err(
        &vs,
        dim(v("A"), 2),
        "`dim` axis 2 is out of range for f64[2,col]",
    );
    expr_err(&vs, dim(v("x"), 0), "`dim` needs an array, got f64");
}

// ---------------------------------------------------------------- allocation

#[test]
fn allocation_takes_one_integer_per_dimension() {
    let vs = vars();
    assert_eq!(
        type_of(
            &vs,
            alloc(AllocInit::Zeros, "f64[2,col]", vec![i(2), v("n")])
        ),
        t("f64[2,col]")
    );
    assert_eq!(
        type_of(&vs, alloc(AllocInit::Ones, "i32[1,row]", vec![v("k")])),
        t("i32[1,row]")
    );
    assert_eq!(
        type_of(
            &vs,
            alloc(AllocInit::Empty, "c64[3,strided]", vec![i(1), i(2), i(3)])
        ),
        t("c64[3,strided]")
    );
    expr_err(
        &vs,
        alloc(AllocInit::Zeros, "f64[2,col]", vec![i(2)]),
        "`zeros` of f64[2,col] needs 2 dims, got 1",
    );
    expr_err(
        &vs,
        alloc(AllocInit::Ones, "f64[1,col]", vec![v("x")]),
        "dim 1 of `ones` must be an integer scalar, got f64",
    );
    expr_err(
        &vs,
        alloc(AllocInit::Empty, "f64[1,col]", vec![v("I")]),
        "must be an integer scalar, got i64[1,row]",
    );
    expr_err(
        &vs,
        alloc(AllocInit::Zeros, "f64[0,col]", vec![]),
        "f64[0,col] has no dimensions",
    );
}

#[test]
fn fill_value_has_the_element_type() {
    let vs = vars();
    let fill = |value: Expr| AllocInit::Fill {
        value: Box::new(value),
    };
    assert_eq!(
        type_of(&vs, alloc(fill(f(1.5)), "f64[1,row]", vec![i(3)])),
        t("f64[1,row]")
    );
    assert_eq!(
        type_of(&vs, alloc(fill(b(true)), "bool[2,col]", vec![i(3), i(3)])),
        t("bool[2,col]")
    );
    expr_err(
        &vs,
        alloc(fill(i(1)), "f64[1,row]", vec![i(3)]),
        "`fill` value must be f64, got i64",
    );
    expr_err(
        &vs,
        alloc(fill(v("u")), "f64[1,row]", vec![i(3)]),
        "`fill` value must be f64, got f64[1,row]",
    );
}

#[test]
fn alloc_statement_takes_the_declared_array_type() {
    let vs = vars();
    body_ok(
        &vs,
        vec![st(StmtKind::Alloc {
            var: "A".into(),
            dims: vec![i(2), v("n")],
        })],
    );
    body_err(
        &vs,
        vec![st(StmtKind::Alloc {
            var: "A".into(),
            dims: vec![i(2)],
        })],
        "alloc of A: f64[2,col] needs 2 dims, got 1",
    );
    body_err(
        &vs,
        vec![st(StmtKind::Alloc {
            var: "x".into(),
            dims: vec![i(2)],
        })],
        "alloc needs an array variable, x is f64",
    );
    body_err(
        &vs,
        vec![st(StmtKind::Alloc {
            var: "u".into(),
            dims: vec![f(2.0)],
        })],
        "dim 1 must be an integer scalar, got f64",
    );
    let msg = body_err(
        &vs,
        vec![st(StmtKind::Alloc {
            var: "nope".into(),
            dims: vec![],
        })],
        "undeclared",
    );
    assert_eq!(msg, "f: stmt 1 (alloc): undeclared variable nope");
}

// ---------------------------------------------------------------- ranges, domains, tuples

#[test]
fn ranges_have_integer_parts() {
    let vs = vars();
    assert_eq!(type_of(&vs, rng(0, 9)), Type::Range);
    assert_eq!(
        type_of(&vs, range(Some(v("n")), Some(v("k")), Some(i32c(-1)))),
        Type::Range
    );
    expr_err(
        &vs,
        range(Some(f(0.0)), Some(i(1)), None),
        "range start must be an integer scalar, got f64",
    );
    expr_err(
        &vs,
        range(Some(i(0)), Some(v("I")), None),
        "range stop must be an integer scalar, got i64[1,row]",
    );
    expr_err(
        &vs,
        range(Some(i(0)), Some(i(1)), Some(v("b"))),
        "range step must be an integer scalar, got bool",
    );
}

#[test]
fn ranges_leave_endpoints_out_only_as_indices() {
    let vs = vars();
    assert_eq!(type_of(&vs, idx(v("u"), vec![all()])), t("f64[1,row]"));
    assert_eq!(
        type_of(&vs, idx(v("u"), vec![range(None, Some(i(3)), None)])),
        t("f64[1,row]")
    );
    expr_err(
        &vs,
        range(None, Some(i(3)), None),
        "a range without a start is allowed only as an index",
    );
    expr_err(
        &vs,
        domain(vec![range(Some(i(0)), None, None)]),
        "a range without a stop is allowed only as an index",
    );
    body_err(
        &[("i", "i64")],
        vec![for_(&["i"], all(), vec![])],
        "a range without a start is allowed only as an index",
    );
    // Nested inside an index expression, it is not an index itself.
    expr_err(
        &vs,
        idx(v("u"), vec![tget(tuple(vec![all()]), 0)]),
        "allowed only as an index",
    );
}

#[test]
fn domains_are_made_of_ranges() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, domain(vec![rng(0, 3), v("r")])),
        Type::Domain { ndims: 2 }
    );
    expr_err(
        &vs,
        domain(vec![rng(0, 3), v("k")]),
        "domain item 2 must be a range, got i64",
    );
    expr_err(&vs, domain(vec![]), "a domain needs at least one range");
}

#[test]
fn tuples_and_tget() {
    let vs = vars();
    let pair = tuple(vec![v("k"), v("A")]);
    assert_eq!(
        type_of(&vs, pair.clone()),
        Type::Tuple {
            items: vec![Type::I64, t("f64[2,col]")]
        }
    );
    assert_eq!(type_of(&vs, tget(pair.clone(), 1)), t("f64[2,col]"));
    expr_err(
        &vs,
        tget(pair, 2),
        "`tget` index 2 is out of range for (tuple i64 f64[2,col])",
    );
    expr_err(&vs, tget(v("x"), 0), "`tget` needs a tuple, got f64");
}

// ---------------------------------------------------------------- calls and map

fn with_callees(main: Function) -> Module {
    module(vec![
        main,
        fun(
            "two",
            &[("a", "f64"), ("c", "i64[1,row]")],
            &["f64"],
            &[],
            vec![ret(vec![v("a")])],
        ),
        fun(
            "pair",
            &[],
            &["i64", "f64"],
            &[],
            vec![ret(vec![i(1), f(2.0)])],
        ),
        fun("sink", &[("a", "f64[2,strided]")], &[], &[], vec![]),
        fun(
            "axpy",
            &[("a", "f64"), ("x", "f64"), ("y", "f64")],
            &["f64"],
            &[],
            vec![ret(vec![v("y")])],
        ),
        fun(
            "tobool",
            &[("x", "f64")],
            &["bool"],
            &[],
            vec![ret(vec![bin(BinOp::Gt, v("x"), f(0.0))])],
        ),
        fun("vec", &[("x", "f64")], &["f64[1,row]"], &[], vec![]),
    ])
}

fn main_with(stmts: Vec<Stmt>) -> Module {
    with_callees(fun("main", &[], &[], &vars(), stmts))
}

#[test]
fn calls_check_arity_and_argument_types() {
    accepts(&main_with(vec![set(
        "x",
        call("two", vec![v("y"), v("I")]),
    )]));
    rejects(
        &main_with(vec![set("x", call("two", vec![v("y")]))]),
        "two takes 2 arguments, got 1",
    );
    let msg = rejects(
        &main_with(vec![set("x", call("two", vec![v("k"), v("I")]))]),
        "argument 1",
    );
    assert_eq!(
        msg,
        "main: stmt 1 (assign): argument 1 of two: cannot pass i64 as a: f64"
    );
    rejects(
        &main_with(vec![eval(call("nothere", vec![]))]),
        "call of unknown function nothere",
    );
}

#[test]
fn strided_parameters_take_any_layout() {
    accepts(&main_with(vec![
        eval(call("sink", vec![v("A")])),
        eval(call("sink", vec![v("B")])),
        eval(call("sink", vec![v("S")])),
    ]));
    rejects(
        &main_with(vec![eval(call("sink", vec![v("T")]))]),
        "cannot pass f64[3,row] as a: f64[2,strided]",
    );
    rejects(
        &main_with(vec![eval(call("sink", vec![v("Z")]))]),
        "cannot pass c128[2,col]",
    );
    // but a row-major parameter takes only row-major arrays
    rejects(
        &main_with(vec![set(
            "x",
            call("two", vec![v("x"), cast("i64[1,col]", v("I"))]),
        )]),
        "cannot pass i64[1,col] as c: i64[1,row]",
    );
}

#[test]
fn void_calls_only_as_expression_statements() {
    accepts(&main_with(vec![eval(call("sink", vec![v("A")]))]));
    let msg = rejects(
        &main_with(vec![set("x", call("sink", vec![v("A")]))]),
        "void",
    );
    assert_eq!(
        msg,
        "main: stmt 1 (assign): call of void function sink used as a value"
    );
    rejects(
        &main_with(vec![eval(bin(
            BinOp::Add,
            call("sink", vec![v("A")]),
            f(1.0),
        ))]),
        "call of void function sink used as a value",
    );
    rejects(
        &main_with(vec![eval(tuple(vec![call("sink", vec![v("A")])]))]),
        "used as a value",
    );
    let m = with_callees(fun(
        "main",
        &[],
        &["f64"],
        &vars(),
        vec![ret(vec![call("sink", vec![v("A")])])],
    ));
    rejects(
        &m,
        "main: stmt 1 (return): call of void function sink used as a value",
    );
}

#[test]
fn multi_result_calls_give_tuples() {
    let m = main_with(vec![mset(&["k", "x"], call("pair", vec![]))]);
    accepts(&m);
    assert_eq!(
        expr_type(&m, &m.functions[0], &call("pair", vec![])).unwrap(),
        Type::Tuple {
            items: vec![Type::I64, Type::F64]
        }
    );
    assert_eq!(
        expr_type(&m, &m.functions[0], &call("sink", vec![v("A")])).unwrap(),
        Type::Void
    );
    rejects(
        &main_with(vec![mset(&["x", "k"], call("pair", vec![]))]),
        "cannot assign i64 to x: f64",
    );
    rejects(
        &main_with(vec![mset(&["k", "x", "y"], call("pair", vec![]))]),
        "assignment to 3 targets needs a tuple of 3 values, got (tuple i64 f64)",
    );
    rejects(
        &main_with(vec![set("x", call("pair", vec![]))]),
        "cannot assign (tuple i64 f64) to x: f64",
    );
    accepts(&main_with(vec![set("k", tget(call("pair", vec![]), 0))]));
}

#[test]
fn map_applies_a_scalar_function() {
    let m = main_with(vec![eval(map("axpy", vec![f(2.0), v("A"), v("B")]))]);
    accepts(&m);
    let ty = expr_type(
        &m,
        &m.functions[0],
        &map("axpy", vec![f(2.0), v("S"), v("x")]),
    )
    .unwrap();
    assert_eq!(ty, t("f64[2,row]"));
    let ty = expr_type(&m, &m.functions[0], &map("tobool", vec![v("uc")])).unwrap();
    assert_eq!(ty, t("bool[1,col]"));
}

#[test]
fn map_rejects_bad_functions_and_arguments() {
    rejects(
        &main_with(vec![eval(map("vec", vec![v("u")]))]),
        "map function vec must take scalars and return one scalar, it is (fn (f64) (f64[1,row]))",
    );
    rejects(
        &main_with(vec![eval(map("pair", vec![]))]),
        "map function pair must take scalars",
    );
    rejects(
        &main_with(vec![eval(map("two", vec![v("u"), v("I")]))]),
        "map function two must take scalars",
    );
    rejects(
        &main_with(vec![eval(map("axpy", vec![f(2.0), v("x"), v("y")]))]),
        "map of axpy needs at least one array argument",
    );
    rejects(
        &main_with(vec![eval(map("axpy", vec![f(2.0), v("A"), v("u")]))]),
        "map arguments must be arrays of one rank, got f64[2,col] and f64[1,row]",
    );
    rejects(
        &main_with(vec![eval(map("axpy", vec![i(2), v("A"), v("B")]))]),
        "map argument 1 must be f64 or an array of it, got i64",
    );
    rejects(
        &main_with(vec![eval(map("axpy", vec![v("A"), v("B")]))]),
        "map function axpy takes 3 arguments, got 2",
    );
    rejects(
        &main_with(vec![eval(map("nothere", vec![v("A")]))]),
        "map of unknown function nothere",
    );
}

// ---------------------------------------------------------------- indexing

#[test]
fn scalar_indices_select_an_element() {
    let vs = vars();
    assert_eq!(type_of(&vs, idx(v("A"), vec![i(0), v("n")])), Type::F64);
    assert_eq!(type_of(&vs, idx(v("M"), vec![i(0)])), Type::BOOL);
    expr_err(
        &vs,
        idx(v("A"), vec![i(0), i(1), i(2)]),
        "3 indices for f64[2,col], which has 2 dimensions",
    );
    expr_err(
        &vs,
        idx(v("A"), vec![]),
        "indexing f64[2,col] needs at least one index",
    );
    expr_err(
        &vs,
        idx(v("x"), vec![i(0)]),
        "`index` needs an array, got f64",
    );
    expr_err(
        &vs,
        idx(v("u"), vec![v("x")]),
        "index 1 must be an integer scalar, a range, or a 1-D integer or bool array, got f64",
    );
    expr_err(
        &vs,
        idx(v("u"), vec![v("b")]),
        "index 1 must be an integer scalar",
    );
    expr_err(&vs, idx(v("u"), vec![v("I2")]), "got i64[2,row]");
}

#[test]
fn slices_gathers_and_masks_give_arrays() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, idx(v("A"), vec![rng(0, 1), i(0)])),
        t("f64[1,col]")
    );
    assert_eq!(
        type_of(&vs, idx(v("A"), vec![all(), all()])),
        t("f64[2,col]")
    );
    assert_eq!(
        type_of(&vs, idx(v("S"), vec![v("r"), i(0)])),
        t("f64[1,row]")
    );
    assert_eq!(
        type_of(&vs, idx(v("B"), vec![v("I"), i(0)])),
        t("f64[1,row]")
    );
    assert_eq!(
        type_of(&vs, idx(v("B"), vec![cast("i32[1,col]", v("I")), v("M")])),
        t("f64[2,row]")
    );
    assert_eq!(type_of(&vs, idx(v("u"), vec![v("M")])), t("f64[1,row]"));
}

#[test]
fn missing_trailing_indices_are_full_ranges() {
    let vs = vars();
    assert_eq!(type_of(&vs, idx(v("T"), vec![i(0)])), t("f64[2,row]"));
    assert_eq!(type_of(&vs, idx(v("A"), vec![i(1)])), t("f64[1,col]"));
    assert_eq!(type_of(&vs, idx(v("T"), vec![rng(0, 1)])), t("f64[3,row]"));
}

#[test]
fn flat_indices_span_the_remaining_dimensions() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![i(3)], flat())),
        Type::F64
    );
    assert_eq!(
        type_of(&vs, idx_flags(v("T"), vec![i(0), i(5)], flat())),
        Type::F64
    );
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![rng(0, 3)], flat())),
        t("f64[1,col]")
    );
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![v("I")], flat())),
        t("f64[1,col]")
    );
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![i(0), i(1)], flat())),
        Type::F64
    );
}

#[test]
fn view_slices_are_strided_and_take_only_scalars_and_ranges() {
    let vs = vars();
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![all(), i(0)], view())),
        t("f64[1,strided]")
    );
    assert_eq!(
        type_of(&vs, idx_flags(v("T"), vec![i(0)], view())),
        t("f64[2,strided]")
    );
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![i(0), i(0)], view())),
        Type::F64
    );
    let both = IndexFlags {
        view: true,
        flatten: true,
        ..IndexFlags::default()
    };
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![i(0), rng(0, 1)], both)),
        t("f64[1,strided]")
    );
    expr_err(
        &vs,
        idx_flags(v("u"), vec![v("I")], view()),
        "`:view` allows only scalar and range indices, index 1 is i64[1,row]",
    );
    expr_err(
        &vs,
        idx_flags(v("A"), vec![i(0), v("M")], view()),
        "index 2 is bool[1,row]",
    );
    expr_err(
        &vs,
        idx_flags(v("A"), vec![rng(0, 3)], both),
        "`:view` cannot be combined with `:flat` on fewer indices than dimensions (1 for f64[2,col])",
    );
}

#[test]
fn index_flags_that_change_nothing_of_the_type() {
    let vs = vars();
    let flags = IndexFlags {
        negative: true,
        check: false,
        ..IndexFlags::default()
    };
    assert_eq!(
        type_of(&vs, idx_flags(v("A"), vec![i(-1), all()], flags)),
        t("f64[1,col]")
    );
}

#[test]
fn indexed_writes_select_like_reads() {
    let vs = vars();
    body_ok(
        &vs,
        vec![
            set_at("A", vec![i(0), i(1)], f(1.0)),
            set_at("A", vec![all(), i(1)], f(0.0)),
            set_at("A", vec![all(), i(1)], v("us")),
            set_at("A", vec![v("I"), all()], v("B")),
            set_at("u", vec![v("M")], v("x")),
            set_at_flags("A", vec![rng(0, 3)], flat(), v("uc")),
            set_at("S", vec![i(0)], v("u")),
        ],
    );
    body_err(
        &vs,
        vec![set_at("A", vec![i(0), i(1)], v("k"))],
        "cannot store i64 into an element of A: f64[2,col]",
    );
    body_err(
        &vs,
        vec![set_at("A", vec![i(0), i(1)], v("u"))],
        "cannot store f64[1,row] into an element of A",
    );
    let msg = body_err(
        &vs,
        vec![set_at("A", vec![all(), i(1)], v("B"))],
        "selection",
    );
    assert_eq!(
        msg,
        "f: stmt 1 (assign): cannot store f64[2,row] into a selection f64[1,col] of A: f64[2,col]"
    );
    body_err(
        &vs,
        vec![set_at("A", vec![all(), i(1)], v("I"))],
        "cannot store i64[1,row] into a selection",
    );
    body_err(
        &vs,
        vec![set_at("x", vec![i(0)], f(1.0))],
        "cannot index x: f64, it is not an array",
    );
    body_err(
        &vs,
        vec![set_at("A", vec![i(0), i(0), i(0)], f(1.0))],
        "3 indices for f64[2,col]",
    );
    body_err(
        &vs,
        vec![set_at_flags("A", vec![v("I")], view(), f(1.0))],
        "`:view` allows only scalar and range indices",
    );
    body_err(
        &vs,
        vec![set_at("nope", vec![i(0)], f(1.0))],
        "undeclared variable nope",
    );
}

// ---------------------------------------------------------------- assignment

#[test]
fn assignment_needs_the_declared_type() {
    let vs = vars();
    body_ok(
        &vs,
        vec![set("x", f(1.0)), set("A", v("A")), set("r", rng(0, 3))],
    );
    let msg = body_err(&vs, vec![set("k", v("A"))], "cannot assign");
    assert_eq!(
        msg,
        "f: stmt 1 (assign): cannot assign f64[2,col] to k: i64"
    );
    body_err(&vs, vec![set("x", v("s"))], "cannot assign f32 to x: f64");
    body_err(
        &vs,
        vec![set("A", v("B"))],
        "cannot assign f64[2,row] to A: f64[2,col]",
    );
    body_err(
        &vs,
        vec![set("B", v("S"))],
        "cannot assign f64[2,strided] to B: f64[2,row]",
    );
}

#[test]
fn strided_variables_hold_any_layout() {
    let vs = vars();
    body_ok(
        &vs,
        vec![
            set("S", v("A")),
            set("S", v("B")),
            set("S", idx_flags(v("T"), vec![i(0)], view())),
        ],
    );
    body_err(
        &vs,
        vec![set("S", v("T"))],
        "cannot assign f64[3,row] to S: f64[2,strided]",
    );
    body_err(
        &vs,
        vec![set("S", v("I2"))],
        "cannot assign i64[2,row] to S: f64[2,strided]",
    );
}

#[test]
fn multiple_assignment_takes_a_tuple() {
    let vs = vars();
    body_ok(&vs, vec![mset(&["k", "A"], tuple(vec![i(1), v("A")]))]);
    body_ok(
        &vs,
        vec![st(StmtKind::Assign {
            targets: vec![
                LValue::Var { name: "x".into() },
                LValue::Index {
                    array: "u".into(),
                    indices: vec![i(0)],
                    flags: IndexFlags::default(),
                },
            ],
            value: tuple(vec![f(1.0), f(2.0)]),
        })],
    );
    body_err(
        &vs,
        vec![mset(&["k", "x"], v("x"))],
        "assignment to 2 targets needs a tuple of 2 values, got f64",
    );
    body_err(
        &vs,
        vec![mset(&["k", "x"], tuple(vec![i(1), i(2)]))],
        "cannot assign i64 to x: f64",
    );
    body_err(&vs, vec![mset(&[], i(1))], "assignment without a target");
}

// ---------------------------------------------------------------- control flow

#[test]
fn conditions_are_bool_scalars() {
    let vs = vars();
    body_ok(
        &vs,
        vec![
            if_(v("b"), vec![], Some(vec![])),
            while_(bin(BinOp::Lt, v("k"), i(3)), vec![]),
        ],
    );
    let msg = body_err(&vs, vec![if_(v("k"), vec![], None)], "condition");
    assert_eq!(
        msg,
        "f: stmt 1 (if): if condition must be a bool scalar, got i64"
    );
    body_err(
        &vs,
        vec![while_(v("M"), vec![])],
        "while condition must be a bool scalar, got bool[1,row]",
    );
}

#[test]
fn loops_over_ranges_and_domains() {
    let vs = vars();
    body_ok(
        &vs,
        vec![
            for_(&["i"], rng(0, 9), vec![]),
            for_(&["i", "j"], domain(vec![rng(0, 2), v("r")]), vec![]),
            for_(&["n"], v("r"), vec![]),
            parfor(
                &["i", "j", "k"],
                domain(vec![rng(0, 1), rng(0, 1), rng(0, 1)]),
                vec![],
            ),
        ],
    );
    body_err(
        &vs,
        vec![for_(&["i"], domain(vec![rng(0, 2), rng(0, 2)]), vec![])],
        "a loop over domain[2] needs 2 loop variables, got 1",
    );
    body_err(
        &vs,
        vec![for_(&["i", "j"], rng(0, 2), vec![])],
        "a loop over range needs 1 loop variable, got 2",
    );
    body_err(
        &vs,
        vec![for_(&["i"], v("k"), vec![])],
        "a loop needs a range or a domain, got i64",
    );
    body_err(
        &vs,
        vec![for_(&[], rng(0, 2), vec![])],
        "a loop needs at least one loop variable",
    );
}

#[test]
fn loop_variables_are_distinct_integer_locals() {
    let vs = vars();
    body_err(
        &vs,
        vec![for_(&["x"], rng(0, 9), vec![])],
        "loop variable x must be an integer local, it is f64",
    );
    body_err(
        &vs,
        vec![parfor(
            &["i", "i"],
            domain(vec![rng(0, 2), rng(0, 2)]),
            vec![],
        )],
        "loop variable i appears twice",
    );
    body_err(
        &vs,
        vec![for_(&["q"], rng(0, 9), vec![])],
        "undeclared variable q",
    );
    let m = module(vec![fun(
        "f",
        &[("p", "i64")],
        &[],
        &[],
        vec![for_(&["p"], rng(0, 9), vec![])],
    )]);
    rejects(
        &m,
        "loop variable p is a parameter; loop variables must be locals",
    );
    // Assigning a loop variable in the body is allowed.
    body_ok(&vs, vec![for_(&["i"], rng(0, 9), vec![set("i", i(3))])]);
}

#[test]
fn break_and_continue_need_a_loop() {
    let vs = vars();
    body_ok(
        &vs,
        vec![
            while_(v("b"), vec![brk(), cont()]),
            for_(
                &["i"],
                rng(0, 3),
                vec![if_(v("b"), vec![brk()], Some(vec![cont()]))],
            ),
        ],
    );
    let msg = body_err(&vs, vec![brk()], "break");
    assert_eq!(msg, "f: stmt 1 (break): break outside a loop");
    body_err(
        &vs,
        vec![if_(v("b"), vec![cont()], None)],
        "continue outside a loop",
    );
}

#[test]
fn parfor_bodies_allow_continue_but_not_break() {
    let vs = vars();
    body_ok(
        &vs,
        vec![parfor(
            &["i"],
            rng(0, 3),
            vec![
                cont(),
                for_(&["j"], rng(0, 3), vec![brk()]),
                while_(v("b"), vec![brk()]),
            ],
        )],
    );
    let msg = body_err(
        &vs,
        vec![parfor(
            &["i"],
            rng(0, 3),
            vec![if_(v("b"), vec![brk()], None)],
        )],
        "break",
    );
    assert_eq!(
        msg,
        "f: stmt 1.1.1 (break): break is not allowed in a parfor body"
    );
}

#[test]
fn return_gives_exactly_the_results() {
    let ok = fun(
        "g",
        &[("a", "f64[1,row]")],
        &["f64", "f64[1,strided]"],
        &[],
        vec![ret(vec![f(1.0), v("a")])],
    );
    accepts(&module(vec![ok]));
    accepts(&module(vec![fun("g", &[], &[], &[], vec![ret(vec![])])]));
    let two = fun("g", &[], &["f64", "i64"], &[], vec![ret(vec![f(1.0)])]);
    assert_eq!(
        rejects(&module(vec![two]), "returns"),
        "g: stmt 1 (return): g returns 2 values, got 1"
    );
    rejects(
        &module(vec![fun("g", &[], &[], &[], vec![ret(vec![i(1)])])]),
        "g returns 0 values, got 1",
    );
    rejects(
        &module(vec![fun("g", &[], &["f64"], &[], vec![ret(vec![i(1)])])]),
        "cannot return i64 as result 1: f64",
    );
    rejects(
        &module(vec![fun(
            "g",
            &[("a", "f64[1,strided]")],
            &["f64[1,row]"],
            &[],
            vec![ret(vec![v("a")])],
        )]),
        "cannot return f64[1,strided] as result 1: f64[1,row]",
    );
}

#[test]
fn return_is_not_allowed_in_a_parfor_body() {
    let vs = vars();
    body_ok(&vs, vec![for_(&["i"], rng(0, 3), vec![ret(vec![])])]);
    body_err(
        &vs,
        vec![parfor(&["i"], rng(0, 3), vec![ret(vec![])])],
        "return is not allowed in a parfor body",
    );
    let msg = body_err(
        &vs,
        vec![parfor(
            &["i"],
            rng(0, 3),
            vec![for_(&["j"], rng(0, 3), vec![block(vec![ret(vec![])])])],
        )],
        "return",
    );
    assert_eq!(
        msg,
        "f: stmt 1.1.1.1 (return): return is not allowed in a parfor body"
    );
}

#[test]
fn nested_parfor_is_allowed() {
    let vs = vars();
    body_ok(
        &vs,
        vec![parfor(
            &["i"],
            rng(0, 3),
            vec![parfor(
                &["j"],
                rng(0, 3),
                vec![set_at("A", vec![v("i"), v("j")], f(0.0))],
            )],
        )],
    );
}

// ---------------------------------------------------------------- atomics

#[test]
fn atomics_only_inside_parfor() {
    let vs = vars();
    let add = || eval(atomic_add("I", vec![v("i")], i(1)));
    body_ok(
        &vs,
        vec![parfor(
            &["i"],
            rng(0, 3),
            vec![
                add(),
                for_(&["j"], rng(0, 3), vec![add()]),
                if_(v("b"), vec![add()], None),
            ],
        )],
    );
    let msg = body_err(&vs, vec![add()], "parfor");
    assert_eq!(
        msg,
        "f: stmt 1 (expr): `atomic-add` is allowed only inside a parfor body"
    );
    body_err(
        &vs,
        vec![for_(&["i"], rng(0, 3), vec![add()])],
        "`atomic-add` is allowed only inside a parfor body",
    );
    body_err(
        &vs,
        vec![set("b", atomic_cas("M", vec![i(0)], b(false), b(true)))],
        "`atomic-cas` is allowed only inside a parfor body",
    );
}

#[test]
fn atomic_add_types() {
    let vs = vars();
    let in_parfor = |e: Expr| vec![parfor(&["i"], rng(0, 3), vec![set("x", e)])];
    body_ok(
        &vs,
        in_parfor(atomic_add("A", vec![v("i"), v("n")], f(0.5))),
    );
    body_ok(
        &vs,
        vec![parfor(
            &["i"],
            rng(0, 3),
            vec![set("n", atomic_add("N", vec![i(0), i(1)], i32c(1)))],
        )],
    );
    body_err(
        &vs,
        in_parfor(atomic_add("M", vec![i(0)], b(true))),
        "`atomic-add` needs an integer or float array, M is bool[1,row]",
    );
    body_err(
        &vs,
        in_parfor(atomic_add("Z", vec![i(0), i(0)], v("w"))),
        "needs an integer or float array",
    );
    body_err(
        &vs,
        in_parfor(atomic_add("A", vec![i(0)], f(1.0))),
        "`atomic-add` needs one index per dimension of A: f64[2,col], got 1",
    );
    body_err(
        &vs,
        in_parfor(atomic_add("A", vec![i(0), rng(0, 1)], f(1.0))),
        "`atomic-add` index 2 must be an integer scalar, got range",
    );
    body_err(
        &vs,
        in_parfor(atomic_add("A", vec![i(0), i(0)], i(1))),
        "atomic-add value must be f64, got i64",
    );
    body_err(
        &vs,
        in_parfor(atomic_add("x", vec![i(0)], f(1.0))),
        "`atomic-add` needs an array variable, x is f64",
    );
    body_err(
        &vs,
        in_parfor(atomic_add("q", vec![i(0)], f(1.0))),
        "undeclared variable q",
    );
}

#[test]
fn atomic_cas_types() {
    let vs = vars();
    let in_parfor = |target: &str, e: Expr| vec![parfor(&["i"], rng(0, 3), vec![set(target, e)])];
    body_ok(
        &vs,
        in_parfor("b", atomic_cas("M", vec![v("i")], b(false), b(true))),
    );
    body_ok(
        &vs,
        in_parfor("k", atomic_cas("I2", vec![v("i"), i(0)], i(0), i(1))),
    );
    body_err(
        &vs,
        in_parfor("x", atomic_cas("A", vec![i(0), i(0)], f(0.0), f(1.0))),
        "`atomic-cas` needs an integer or bool array, A is f64[2,col]",
    );
    body_err(
        &vs,
        in_parfor("b", atomic_cas("M", vec![i(0)], i(0), b(true))),
        "atomic-cas expected value must be bool, got i64",
    );
    body_err(
        &vs,
        in_parfor("b", atomic_cas("M", vec![i(0)], b(false), i(1))),
        "atomic-cas new value must be bool, got i64",
    );
}

// ---------------------------------------------------------------- locations in messages

#[test]
fn paths_number_nested_statements() {
    let vs = vars();
    let bad = || set("k", f(1.0));
    let msg = body_err(
        &vs,
        vec![
            set("x", f(0.0)),
            block(vec![for_(
                &["i"],
                rng(0, 3),
                vec![set("x", f(0.0)), set("x", f(0.0)), bad()],
            )]),
        ],
        "cannot",
    );
    assert_eq!(msg, "f: stmt 2.1.3 (assign): cannot assign f64 to k: i64");
    let msg = body_err(
        &vs,
        vec![if_(
            v("b"),
            vec![set("x", f(0.0))],
            Some(vec![set("x", f(0.0)), bad()]),
        )],
        "cannot",
    );
    assert!(msg.starts_with("f: stmt 1.else.2 (assign): "), "{msg}");
    let msg = body_err(&vs, vec![while_(v("b"), vec![gpu(vec![bad()])])], "cannot");
    assert!(msg.starts_with("f: stmt 1.1.1 (assign): "), "{msg}");
    let msg = body_err(&vs, vec![if_(v("b"), vec![bad()], None)], "cannot");
    assert!(msg.starts_with("f: stmt 1.1 (assign): "), "{msg}");
}

#[test]
fn errors_carry_function_and_source_line() {
    let vs = vars();
    let m = module(vec![
        fun("ok", &[], &[], &[], vec![]),
        fun(
            "g",
            &[],
            &[],
            &vs,
            vec![
                set("x", f(0.0)),
                at_line(
                    for_(&["i"], rng(0, 3), vec![at_line(set("k", v("A")), 12)]),
                    11,
                ),
            ],
        ),
    ]);
    let e = verify_module(&m).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    assert_eq!(
        e.message,
        "g: stmt 2.1 [line 12] (assign): cannot assign f64[2,col] to k: i64"
    );
    assert_eq!(e.function.as_deref(), Some("g"));
    assert_eq!(e.line, Some(12));
    // A compound statement's own error carries its own line.
    let m = body(&vs, vec![at_line(while_(v("k"), vec![]), 4)]);
    let e = verify_module(&m).unwrap_err();
    assert_eq!(
        e.message,
        "f: stmt 1 [line 4] (while): while condition must be a bool scalar, got i64"
    );
    assert_eq!(e.line, Some(4));
    // Without a source line, none is invented.
    let e = verify_module(&body(&vs, vec![brk()])).unwrap_err();
    assert_eq!(e.line, None);
}

#[test]
fn statement_kinds_in_messages() {
    let cases: Vec<(Stmt, &str)> = vec![
        (block(vec![brk()]), "(break)"),
        (gpu(vec![cont()]), "(continue)"),
        (for_(&["x"], rng(0, 1), vec![]), "(for)"),
        (parfor(&["x"], rng(0, 1), vec![]), "(parfor)"),
        (eval(v("q")), "(expr)"),
        (ret(vec![i(1)]), "(return)"),
        (st(StmtKind::Free { var: "q".into() }), "(free)"),
        (st(StmtKind::RefIncr { var: "q".into() }), "(refincr)"),
        (st(StmtKind::RefDecr { var: "q".into() }), "(refdecr)"),
    ];
    for (s, kind) in cases {
        body_err(&vars(), vec![s], kind);
    }
}

// ---------------------------------------------------------------- expr_type for backends

#[test]
fn expr_type_accepts_what_verified_functions_contain() {
    let m = body(&vars(), vec![]);
    let f = &m.functions[0];
    // atomics and open ranges are legal in their places (parfor bodies, indices)
    assert_eq!(
        expr_type(&m, f, &atomic_add("I", vec![i(0)], i(1))).unwrap(),
        Type::I64
    );
    assert_eq!(expr_type(&m, f, &all()).unwrap(), Type::Range);
    let e = expr_type(&m, f, &bin(BinOp::Add, v("x"), v("nope"))).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    assert_eq!(e.message, "f: undeclared variable nope");
    assert_eq!(e.function.as_deref(), Some("f"));
}

// ---------------------------------------------------------------- robustness

/// Odd inputs give an answer (usually an error), never a panic or a stack overflow.
#[test]
fn odd_modules_never_panic() {
    let huge = format!("f64[{},row]", u32::MAX);
    let huge_vars: Vec<(&str, &str)> = vec![
        ("H", huge.as_str()),
        ("k", "i64"),
        ("x", "f64"),
        ("I", "i64[1,row]"),
    ];
    let mut odd: Vec<Module> = vec![
        module(vec![fun("", &[], &[], &[], vec![])]),
        module(vec![fun(
            "f",
            &[("a", "f64[0,row]")],
            &[],
            &[],
            vec![eval(idx(v("a"), vec![i(0)]))],
        )]),
        body(&huge_vars, vec![eval(idx(v("H"), vec![i(0)]))]),
        body(
            &huge_vars,
            vec![eval(idx_flags(v("H"), vec![i(0), v("I")], flat()))],
        ),
        body(
            &huge_vars,
            vec![eval(reduce(ReduceOp::Sum, v("H"), Some(u32::MAX - 1)))],
        ),
        body(
            &huge_vars,
            vec![eval(reduce(ReduceOp::Sum, v("H"), Some(u32::MAX)))],
        ),
        body(&huge_vars, vec![eval(dim(v("H"), u32::MAX))]),
        body(
            &huge_vars,
            vec![st(StmtKind::Alloc {
                var: "H".into(),
                dims: vec![i(1)],
            })],
        ),
        body(
            &huge_vars,
            vec![eval(alloc(AllocInit::Zeros, &huge, vec![]))],
        ),
        body(
            &huge_vars,
            vec![eval(lib(LibFn::Matmul, vec![v("H"), v("H")]))],
        ),
        body(&huge_vars, vec![eval(lib(LibFn::Transpose, vec![v("H")]))]),
        body(
            &huge_vars,
            vec![parfor(
                &["k"],
                rng(0, 1),
                vec![eval(atomic_add("H", vec![i(0)], f(1.0)))],
            )],
        ),
        body(&huge_vars, vec![eval(tget(tuple(vec![]), u32::MAX))]),
        body(&huge_vars, vec![eval(map("f", vec![v("H")]))]),
        body(&huge_vars, vec![eval(call("f", vec![v("H")]))]),
        body(&huge_vars, vec![set_at("H", vec![], f(0.0))]),
        body(&huge_vars, vec![eval(cast(&huge, v("H")))]),
        body(&[], vec![for_(&["k"], domain(vec![]), vec![])]),
        body(
            &[("d", "domain[4294967295]")],
            vec![for_(&["d"], v("d"), vec![])],
        ),
    ];
    let mut empty_names = fun("f", &[("", "f64")], &["f64"], &[], vec![ret(vec![v("")])]);
    empty_names.line = Some(u32::MAX);
    odd.push(module(vec![empty_names]));
    let mut deep = v("x");
    for _ in 0..5000 {
        deep = un(UnOp::Neg, deep);
    }
    odd.push(body(&huge_vars, vec![eval(deep)]));
    let mut nested = brk();
    for _ in 0..3000 {
        nested = block(vec![nested]);
    }
    odd.push(body(&[], vec![nested]));

    for m in &odd {
        let _ = verify_module(m);
    }
    // The answers that matter: rank-0 types and over-deep nesting are errors.
    rejects(&odd[1], "f64[0,row] has no dimensions");
    assert!(verify_module(&odd[2]).is_ok());
    let too_deep = format!("nested more than {MAX_NESTING} deep");
    rejects(&odd[odd.len() - 2], &too_deep);
    rejects(&odd[odd.len() - 1], &too_deep);
}

/// Runs in a test thread's 2 MiB stack, also in unoptimized builds.
#[test]
fn nesting_up_to_the_limit_is_accepted() {
    let mut deep = v("x");
    for _ in 0..(MAX_NESTING - 2) / 2 {
        deep = bin(BinOp::Add, f(1.0), lib(LibFn::Sqrt, vec![deep]));
    }
    body_ok(&[("x", "f64")], vec![eval(deep)]);
    let mut deep = v("u");
    for _ in 0..(MAX_NESTING - 2) {
        deep = idx(deep, vec![all()]);
    }
    body_ok(&[("u", "f64[1,row]")], vec![eval(deep)]);
    let mut nested = set("x", f(1.0));
    for _ in 0..(MAX_NESTING - 10) {
        nested = block(vec![nested]);
    }
    body_ok(&[("x", "f64")], vec![nested]);
}

// ---------------------------------------------------------------- whole programs in text form

fn parse(src: &str) -> Module {
    crate::vrir::text::parse_module(src)
        .unwrap_or_else(|e| panic!("test module does not parse: {e}"))
}

#[test]
fn the_dot_product_example_verifies() {
    accepts(&parse(
        "(module dot :index-base 0
          (function dot ((x f64[1,row]) (y f64[1,row])) (f64)
            (locals (i i64) (s f64))
            (set s 0.0)
            (for (i) (range 0 (- (dim x 0) 1))
              (block
                (set s (+ s (* (index x i) (index y i))))))
            (return s)))",
    ));
}

#[test]
fn a_program_using_most_constructs_verifies() {
    let m = parse(
        "(module prog :index-base 1
          (function stats ((a f64[2,col])) (f64 f64)
            (locals)
            (return (amin a) (amax a)))
          (function scale ((x f64)) (f64)
            (locals)
            (return (* 2.0 x)))
          (function main ((a f64[2,col]) (bins i64[1,row]) (n i64)) (f64[2,col] i64)
            (locals (lo f64) (hi f64) (i i64) (j i64) (k i32) (t f64[2,col])
                    (col f64[1,strided]) (h i64) (p c128) (done bool))
            (mset (lo hi) (call stats a))
            (alloc t (dim a 0) (dim a 1))
            (gpu
              (parfor (i j) (domain (range 1 (dim a 0)) (range 1 (dim a 1)))
                (block
                  (set (index t i j) (/ (- (index a i j) lo) (- hi lo)))
                  (expr (atomic-add bins (+ 1 (cast i64 (* 9.0 (index t i j)))) :value 1)))))
            (set col (index t : 1 :view))
            (set (index col (range 1 2)) (index col (range 2 3) :view))
            (set t (map scale t))
            (set done false)
            (set h 0)
            (while (not done)
              (block
                (set h (+ h 1))
                (if (>= h n) (block (set done true)) (block (continue)))))
            (for (k) (range 1:i32 10:i32 2:i32)
              (block (if (== k 5:i32) (block (break)))))
            (set p (* (complex (sum t) 0.0) (c128 0.0 1.0)))
            (set t (cast f64[2,col] (> t (real p))))
            (set (index col (> col 0.5)) 0.0)
            (free col)
            (return t (sum bins))))",
    );
    accepts(&m);
}

#[test]
fn source_lines_from_the_text_form_reach_the_message() {
    let m = parse(
        "(module m :index-base 0
          (function f ((x f64)) (i64)
            (locals (k i64))
            (if (> x 0.0)
              (block
                (set k 1)
                (set k x :line 7)))
            (return k)))",
    );
    let e = verify_module(&m).unwrap_err();
    assert_eq!(
        e.message,
        "f: stmt 1.2 [line 7] (assign): cannot assign f64 to k: i64"
    );
    assert_eq!(e.line, Some(7));
}

#[test]
fn names_must_be_plain_names() {
    let src = "(module m :index-base 0 (function f ((x i64)) (i64) (locals) (return x)))";
    let mut m = crate::vrir::text::parse_module(src).unwrap();
    m.functions[0].params[0].name = "nan".into();
    let e = verify_module(&m).unwrap_err();
    assert_eq!(e.message, "f: parameter name \"nan\" is not a name");
    m.functions[0].params[0].name = "x".into();
    m.functions[0].name = "two words".into();
    let e = verify_module(&m).unwrap_err();
    assert_eq!(e.message, "module m: function name \"two words\" is not a name");
}
