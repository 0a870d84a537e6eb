//! The text form of VRIR (docs/vrir-text.md): printed snapshots, round trips, literal
//! formatting, parse errors with positions, and robustness against truncated and mutated
//! input. The sample programs live in tests/text_form/*.vrir.

use velociraptor::vrir::text::{is_plain_name, parse_module, parse_type, print_expr, print_module};
use velociraptor::vrir::*;
use velociraptor::ErrorKind;

const DOT: &str = "\
; dot product, 0-based
(module dot :index-base 0
  (function dot ((x f64[1,row]) (y f64[1,row])) (f64)
    (locals (i i64) (s f64))
    (set s 0.0)
    (for (i) (range 0 (- (dim x 0) 1))
      (block
        (set s (+ s (* (index x i) (index y i))))))
    (return s)))
";
const STATEMENTS: &str = include_str!("text_form/statements.vrir");
const EXPRESSIONS: &str = include_str!("text_form/expressions.vrir");
const NAMES: &str = include_str!("text_form/names.vrir");
const LONG: &str = include_str!("text_form/long.vrir");

/// The source without its leading comment lines: the canonical form of the samples.
fn without_comments(src: &str) -> String {
    src.lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn parse(src: &str) -> Module {
    parse_module(src).unwrap_or_else(|e| panic!("{e}"))
}

/// parse(print(m)) == m and print(parse(print(m))) == print(m). Equality is checked on
/// the Debug form, which is exact for floats and, unlike `==`, equates NaN with NaN.
fn assert_round_trip(m: &Module) {
    let printed = print_module(m);
    let reparsed = parse_module(&printed).unwrap_or_else(|e| panic!("{e}\nin\n{printed}"));
    assert!(
        format!("{reparsed:?}") == format!("{m:?}"),
        "parse(print(m)) != m for\n{printed}"
    );
    assert_eq!(print_module(&reparsed), printed);
}

// ------------------------------------------------------------------ snapshots

#[test]
fn snapshot_dot() {
    insta::assert_snapshot!("dot", print_module(&parse(DOT)));
}

#[test]
fn snapshot_statements() {
    insta::assert_snapshot!("statements", print_module(&parse(STATEMENTS)));
}

#[test]
fn snapshot_expressions() {
    insta::assert_snapshot!("expressions", print_module(&parse(EXPRESSIONS)));
}

#[test]
fn snapshot_names() {
    insta::assert_snapshot!("names", print_module(&parse(NAMES)));
}

#[test]
fn snapshot_long_expression_is_broken() {
    insta::assert_snapshot!("long", print_module(&parse(LONG)));
}

/// The samples are written in canonical form, so printing gives them back verbatim
/// (except the long one, which the printer breaks over several lines).
#[test]
fn canonical_samples_print_verbatim() {
    for src in [DOT, STATEMENTS, EXPRESSIONS, NAMES] {
        assert_eq!(print_module(&parse(src)), without_comments(src));
    }
    let long = print_module(&parse(LONG));
    assert!(long.lines().all(|l| l.len() <= 100), "{long}");
    assert_ne!(long, without_comments(LONG));
}

// ------------------------------------------------------------------ round trips

#[test]
fn samples_round_trip() {
    for src in [DOT, STATEMENTS, EXPRESSIONS, NAMES, LONG] {
        assert_round_trip(&parse(src));
    }
}

#[test]
fn every_statement_and_expression_kind_is_in_the_samples() {
    let mut stmts = std::collections::BTreeSet::new();
    let mut exprs = std::collections::BTreeSet::new();
    let text = format!("{STATEMENTS}{EXPRESSIONS}");
    for word in text.split(|c: char| c == '(' || c == ')' || c.is_whitespace()) {
        stmts.insert(word.to_string());
        exprs.insert(word.to_string());
    }
    let heads = [
        "block",
        "gpu",
        "set",
        "mset",
        "if",
        "for",
        "parfor",
        "while",
        "break",
        "continue",
        "return",
        "expr",
        "alloc",
        "free",
        "refincr",
        "refdecr",
        "neg",
        "not",
        "cast",
        "call",
        "zeros",
        "ones",
        "empty",
        "fill",
        "dim",
        "range",
        "domain",
        "tuple",
        "tget",
        "map",
        "index",
        "atomic-add",
        "atomic-cas",
        "c64",
        "c128",
        ":",
        "_",
        ":axis",
        ":acc",
        "f80",
        ":neg",
        ":flat",
        ":nocheck",
        ":view",
        ":line",
        ":restrict",
    ];
    let lib = LibFn::ALL.iter().map(|f| f.name());
    let ops = BinOp::ALL.iter().map(|o| o.symbol());
    let reductions = ReduceOp::ALL.iter().map(|r| r.name());
    let scans = ScanOp::ALL.iter().map(|s| s.name());
    for head in heads.into_iter().chain(lib).chain(ops).chain(reductions).chain(scans) {
        assert!(stmts.contains(head), "no `{head}` in the samples");
    }
}

/// A module built directly from the AST (not by the parser) prints as written by hand.
#[test]
fn hand_built_module_prints_as_expected() {
    let body = vec![
        Stmt {
            kind: StmtKind::Assign {
                targets: vec![LValue::Index {
                    array: "a".into(),
                    indices: vec![
                        Expr::i64(0),
                        Expr::Range {
                            start: None,
                            stop: None,
                            step: None,
                        },
                    ],
                    flags: IndexFlags {
                        negative: true,
                        flatten: false,
                        check: false,
                        view: true,
                    },
                }],
                value: Expr::lit(Literal::F32(2.5)),
            },
            line: Some(7),
        },
        Stmt::new(StmtKind::If {
            cond: Expr::binary(BinOp::Lt, Expr::var("n"), Expr::lit(Literal::I32(3))),
            then: Block {
                on_gpu: true,
                stmts: vec![Stmt::new(StmtKind::Break)],
            },
            els: None,
        }),
        Stmt::new(StmtKind::Return { values: vec![] }),
    ];
    let m = Module {
        name: "m".into(),
        index_base: 1,
        functions: vec![Function {
            name: "f".into(),
            params: vec![
                Param {
                    name: "a".into(),
                    ty: Type::array(ScalarType::F32, 2, Layout::Strided),
                    restrict: true,
                },
                Param {
                    name: "n".into(),
                    ty: Type::I32,
                    restrict: false,
                },
            ],
            results: vec![],
            locals: vec![],
            body,
            line: Some(3),
        }],
    };
    let expected = "\
(module m :index-base 1
  (function f ((a f32[2,strided] :restrict) (n i32)) () :line 3
    (locals)
    (set (index a 0 : :neg :nocheck :view) 2.5:f32 :line 7)
    (if (< n 3:i32)
      (gpu
        (break)))
    (return)))
";
    assert_eq!(print_module(&m), expected);
    assert_round_trip(&m);
}

// ------------------------------------------------------------------ literals and types

fn const_of(src: &str) -> Literal {
    let m = parse(&format!(
        "(module m :index-base 0 (function f () () (locals) (expr {src})))"
    ));
    match &m.functions[0].body[0].kind {
        StmtKind::Expr {
            expr: Expr::Const { value },
        } => *value,
        other => panic!("not a constant: {other:?}"),
    }
}

#[test]
fn literals_parse_to_their_types() {
    assert_eq!(const_of("42"), Literal::I64(42));
    assert_eq!(const_of("-7"), Literal::I64(-7));
    assert_eq!(const_of("42:i32"), Literal::I32(42));
    assert_eq!(const_of("42:i64"), Literal::I64(42));
    assert_eq!(const_of("-9223372036854775808"), Literal::I64(i64::MIN));
    assert_eq!(const_of("2.5"), Literal::F64(2.5));
    assert_eq!(const_of("-1e-3"), Literal::F64(-0.001));
    assert_eq!(const_of("2.5:f32"), Literal::F32(2.5));
    assert_eq!(const_of("1E3"), Literal::F64(1000.0));
    assert_eq!(const_of(".5"), Literal::F64(0.5));
    assert_eq!(const_of("true"), Literal::Bool(true));
    assert_eq!(const_of("inf"), Literal::F64(f64::INFINITY));
    assert_eq!(const_of("-inf:f32"), Literal::F32(f32::NEG_INFINITY));
    assert!(matches!(const_of("nan"), Literal::F64(v) if v.is_nan()));
    assert!(matches!(const_of("nan:f32"), Literal::F32(v) if v.is_nan()));
    assert_eq!(const_of("(c64 1.0 0.5)"), Literal::C64([1.0, 0.5]));
    assert_eq!(const_of("(c128 1.0 -2.0)"), Literal::C128([1.0, -2.0]));
    // -0.0 keeps its sign.
    assert!(matches!(const_of("-0.0"), Literal::F64(v) if v == 0.0 && v.is_sign_negative()));
    // f32 constants are rounded once, from the decimal text: 0.1:f32 is the f32 nearest
    // to 0.1 (0x3dcccccd), and 16777217.0:f32 rounds to even, 16777216.
    assert_eq!(
        const_of("0.1:f32"),
        Literal::F32(f32::from_bits(0x3dcc_cccd))
    );
    assert_eq!(const_of("16777217.0:f32"), Literal::F32(16_777_216.0));
    assert_eq!(const_of("(c64 0.1 0.2)"), Literal::C64([0.1, 0.2]));
}

fn printed(value: Literal) -> String {
    print_expr(&Expr::lit(value))
}

#[test]
fn floats_print_in_shortest_round_trip_form_with_a_point_or_exponent() {
    assert_eq!(printed(Literal::F64(1.0)), "1.0");
    assert_eq!(printed(Literal::F64(1e-7)), "1e-7");
    assert_eq!(printed(Literal::F64(-0.0)), "-0.0");
    assert_eq!(printed(Literal::F64(0.1)), "0.1");
    assert_eq!(printed(Literal::F64(100.0)), "100.0");
    assert_eq!(printed(Literal::F64(1e16)), "1e16");
    assert_eq!(
        printed(Literal::F64(123456789012345.0)),
        "123456789012345.0"
    );
    assert_eq!(printed(Literal::F64(f64::MAX)), "1.7976931348623157e308");
    assert_eq!(printed(Literal::F64(5e-324)), "5e-324");
    assert_eq!(printed(Literal::F64(f64::NAN)), "nan");
    assert_eq!(printed(Literal::F64(f64::NEG_INFINITY)), "-inf");
    assert_eq!(printed(Literal::F32(2.5)), "2.5:f32");
    // 0.1f32 is 0.100000001490116...; its shortest f32 form is 0.1, not the f64 digits.
    assert_eq!(printed(Literal::F32(0.1)), "0.1:f32");
    assert_eq!(printed(Literal::F32(f32::INFINITY)), "inf:f32");
    assert_eq!(printed(Literal::F32(1e-10)), "1e-10:f32");
    assert_eq!(printed(Literal::I32(3)), "3:i32");
    assert_eq!(printed(Literal::I64(-3)), "-3");
    assert_eq!(printed(Literal::Bool(false)), "false");
    assert_eq!(printed(Literal::C64([0.1, -1.0])), "(c64 0.1 -1.0)");
    assert_eq!(
        printed(Literal::C128([f64::NAN, f64::INFINITY])),
        "(c128 nan inf)"
    );
}

#[test]
fn every_float_survives_print_and_parse() {
    let f64s = [
        0.1,
        1.0 / 3.0,
        2.0f64.powi(-1074),
        f64::MIN_POSITIVE,
        1e15,
        1e16,
        9007199254740993.0,
        -1e-5,
    ];
    for v in f64s {
        assert_eq!(
            const_of(&printed(Literal::F64(v))),
            Literal::F64(v),
            "{v:e}"
        );
    }
    let f32s = [
        0.1f32,
        1.0 / 3.0,
        f32::MIN_POSITIVE,
        f32::MAX,
        1e-45,
        16777216.0,
        -3.4e38,
    ];
    for v in f32s {
        assert_eq!(
            const_of(&printed(Literal::F32(v))),
            Literal::F32(v),
            "{v:e}"
        );
    }
}

#[test]
fn types_parse_and_print() {
    let cases = [
        ("f64", Type::F64),
        ("c128", Type::C128),
        ("bool", Type::BOOL),
        ("f64[2,col]", Type::array(ScalarType::F64, 2, Layout::Col)),
        ("i32[1,row]", Type::array(ScalarType::I32, 1, Layout::Row)),
        (
            "f32[3,strided]",
            Type::array(ScalarType::F32, 3, Layout::Strided),
        ),
        ("range", Type::Range),
        ("domain[2]", Type::Domain { ndims: 2 }),
        ("void", Type::Void),
        (
            "(tuple i64 f64[1,row])",
            Type::Tuple {
                items: vec![Type::I64, Type::array(ScalarType::F64, 1, Layout::Row)],
            },
        ),
        ("(tuple)", Type::Tuple { items: vec![] }),
        (
            "(fn (f64 f64) (f64))",
            Type::Func {
                params: vec![Type::F64, Type::F64],
                results: vec![Type::F64],
            },
        ),
        (
            "(fn () ())",
            Type::Func {
                params: vec![],
                results: vec![],
            },
        ),
    ];
    for (text, ty) in cases {
        assert_eq!(parse_type(text).unwrap(), ty, "{text}");
        assert_eq!(ty.to_string(), text);
    }
    assert_eq!(
        parse_type("  ; a comment\n (tuple i64\n f64) ").unwrap(),
        Type::Tuple {
            items: vec![Type::I64, Type::F64]
        }
    );
}

#[test]
fn bad_types_are_errors_with_positions() {
    let cases = [
        ("", "line 1 column 1: expected a type, found no input"),
        ("f65", "line 1 column 1: unknown type `f65`"),
        ("f64[2,diag]", "line 1 column 1: bad array type `f64[2,diag]`: expected ELEM[NDIMS,row|col|strided]"),
        ("f64[two,row]", "line 1 column 1: bad array type `f64[two,row]`: expected ELEM[NDIMS,row|col|strided]"),
        ("f64[2, col]", "line 1 column 1: unknown type `f64[2,`"),
        ("domain[x]", "line 1 column 1: bad domain type `domain[x]`: expected domain[N]"),
        ("f64 i64", "line 1 column 5: unexpected `i64` after the type"),
        ("(tuple i64 (list))", "line 1 column 12: unknown type `(list ...)`"),
        ("(fn (f64))", "line 1 column 10: missing the result types in `(fn ...)`"),
        ("(fn (f64) (f64) x)", "line 1 column 17: unexpected `x` in `(fn ...)`"),
        ("(tuple i64", "line 1 column 11: unexpected end of input: the list opened at line 1 column 1 is not closed"),
    ];
    for (text, message) in cases {
        let e = parse_type(text).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Parse);
        assert_eq!(e.message, message, "{text}");
    }
}

#[test]
fn print_expr_is_one_line() {
    let m = parse(LONG);
    let StmtKind::Assign { value, .. } = &m.functions[0].body[0].kind else {
        panic!()
    };
    let line = print_expr(value);
    assert!(!line.contains('\n'));
    assert!(line.starts_with("(+ (index coefficient_array 0) (* evaluation_point (+"));
    assert_eq!(
        print_expr(&Expr::Range {
            start: None,
            stop: None,
            step: None
        }),
        ":"
    );
    let r = Expr::Range {
        start: None,
        stop: Some(Box::new(Expr::var("n"))),
        step: Some(Box::new(Expr::i64(-1))),
    };
    assert_eq!(print_expr(&r), "(range _ n -1)");
}

#[test]
fn plain_names() {
    for name in ["x", "_x", "a.b", "set", "index", "f64", "x1_y"] {
        assert!(is_plain_name(name), "{name}");
    }
    for name in [
        "", "1x", "a-b", "true", "false", "nan", "inf", "_", ":x", "a b", "é",
    ] {
        assert!(!is_plain_name(name), "{name}");
    }
}

// ------------------------------------------------------------------ parse errors

/// The parse error of `body` placed in a function whose body starts on line 2, column 1.
fn body_error(body: &str) -> String {
    let src = format!(
        "(module m :index-base 0 (function f ((a f64[2,row]) (x f64)) () (locals)\n{body}))"
    );
    let e = parse_module(&src).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Parse);
    e.message
}

#[test]
fn module_errors_name_line_and_column() {
    let cases = [
        ("", "line 1 column 1: expected `(module ...)`, found no input"),
        ("; only a comment\n", "line 1 column 1: expected `(module ...)`, found no input"),
        ("module", "line 1 column 1: expected `(module ...)`, found `module`"),
        ("(modul m :index-base 0)", "line 1 column 1: expected `(module ...)`, found `(modul ...)`"),
        ("(module m)", "line 1 column 10: missing `:index-base ...` in `(module ...)`"),
        ("(module m :index-base 2)", "line 1 column 23: `:index-base` must be 0 or 1, found `2`"),
        ("(module m :index-base)", "line 1 column 22: missing the value of `:index-base` in `(module ...)`"),
        ("(module 3 :index-base 0)", "line 1 column 9: expected the module name (a name), found `3`"),
        ("(module m :index-base 0)\n(module n :index-base 0)", "line 2 column 1: unexpected `(module ...)` after the module"),
        ("(module m :index-base 0))", "line 1 column 25: unexpected `)` with no list open"),
        ("(module m :index-base 0\n  (function f () ()", "line 2 column 20: unexpected end of input: the list opened at line 2 column 3 is not closed"),
        ("(module m :index-base 0 (fn f () ()))", "line 1 column 25: expected `(function ...)`, found `(fn ...)`"),
        ("(module m :index-base 0 (function f ()))", "line 1 column 39: missing the result list in `(function ...)`"),
        ("(module m :index-base 0 (function f x ()))", "line 1 column 37: expected the parameter list (a list), found `x`"),
        ("(module m :index-base 0 (function f ((x)) ()))", "line 1 column 38: expected a parameter `(NAME TYPE)` or `(NAME TYPE :restrict)`"),
        ("(module m :index-base 0 (function f ((x f64 :noalias)) ()))", "line 1 column 38: expected a parameter `(NAME TYPE)` or `(NAME TYPE :restrict)`"),
        ("(module m :index-base 0 (function f () (f64[2]) ))", "line 1 column 41: bad array type `f64[2]`: expected ELEM[NDIMS,row|col|strided]"),
        ("(module m :index-base 0 (function f () () :line x))", "line 1 column 49: expected a line number (a non-negative integer), found `x`"),
        ("(module m :index-base 0 (function f () () (locals (x))))", "line 1 column 51: expected a local `(NAME TYPE)`"),
    ];
    for (src, message) in cases {
        let e = parse_module(src).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Parse);
        assert_eq!(e.message, message, "{src}");
    }
}

#[test]
fn statement_errors_name_line_and_column() {
    let cases = [
        ("(set x)", "line 2 column 7: missing the value in `(set ...)`"),
        ("(set x 1 2)", "line 2 column 10: unexpected `2` in `(set ...)`"),
        ("  (frob x)", "line 2 column 3: unknown statement `(frob ...)`"),
        ("(+ x 1.0)", "line 2 column 1: unknown statement `(+ ...)` (write `(expr ...)` to evaluate an expression)"),
        ("x", "line 2 column 1: expected a statement, found `x`"),
        ("()", "line 2 column 1: expected a statement, found `()`"),
        ("((set) x)", "line 2 column 2: expected a name at the head of a statement, found a list"),
        ("(if true (set x 1.0))", "line 2 column 10: expected `(block ...)` or `(gpu ...)`, found `(set ...)`"),
        ("(if true)", "line 2 column 9: missing the then block in `(if ...)`"),
        ("(if true (block) (block) (block))", "line 2 column 26: unexpected `(block ...)` in `(if ...)`"),
        ("(for i (range 0 1) (block))", "line 2 column 6: expected the loop variables (a list), found `i`"),
        ("(for (i 2) (range 0 1) (block))", "line 2 column 9: expected a loop variable (a name), found `2`"),
        ("(parfor (i) (range 0 1))", "line 2 column 24: missing the loop body in `(parfor ...)`"),
        ("(while true (block) :line)", "line 2 column 21: unexpected `:line` in `(while ...)`"),
        ("(for (i) (range 0 1) (block :line 3))", "line 2 column 29: a body block takes no `:line`; put it at the end of the statement"),
        ("(set x 1.0 :line -1)", "line 2 column 18: expected a line number (a non-negative integer), found `-1`"),
        ("(break 1)", "line 2 column 8: unexpected `1` in `(break ...)`"),
        ("(mset x (call g))", "line 2 column 7: expected the target list (a list), found `x`"),
        ("(set (a 1) 1.0)", "line 2 column 6: expected a variable or `(index ...)` as target, found `(a ...)`"),
        ("(set (index (index a 0) 1) 1.0)", "line 2 column 13: expected the array variable (a name), found `(index ...)`"),
        ("(free (index a 0))", "line 2 column 7: expected the variable (a name), found `(index ...)`"),
        ("(alloc)", "line 2 column 7: missing the variable in `(alloc ...)`"),
    ];
    for (body, message) in cases {
        assert_eq!(body_error(body), message, "{body}");
    }
}

#[test]
fn expression_errors_name_line_and_column() {
    let cases = [
        ("(expr (sqrt 1.0 2.0))", "line 2 column 7: `sqrt` takes 1 argument, found 2"),
        ("(expr (pow 1.0))", "line 2 column 7: `pow` takes 2 arguments, found 1"),
        ("(expr (sum))", "line 2 column 11: missing the operand in `(sum ...)`"),
        ("(expr (sum a :axis))", "line 2 column 14: unexpected `:axis` in `(sum ...)`"),
        ("(expr (sum a :axis -1))", "line 2 column 20: expected an axis (a non-negative integer), found `-1`"),
        ("(expr (frob 1))", "line 2 column 7: unknown expression `(frob ...)` (a call of a module function is written `(call frob ...)`)"),
        ("(expr (set x 1))", "line 2 column 7: unknown expression `(set ...)` (a statement is not an expression)"),
        ("(expr (+ 1 2 3))", "line 2 column 14: unexpected `3` in `(+ ...)`"),
        ("(expr (- 1))", "line 2 column 11: missing the right operand in `(- ...)`"),
        ("(expr (neg))", "line 2 column 11: missing the operand in `(neg ...)`"),
        ("(expr 1.0:i32)", "line 2 column 7: `1.0:i32`: a float constant cannot have an integer type"),
        ("(expr 3:f32)", "line 2 column 7: `3:f32`: a float constant needs a `.` or an exponent (`3.0`)"),
        ("(expr 3:u8)", "line 2 column 7: `3:u8`: unknown constant type `u8` (expected i32 or i64)"),
        ("(expr 3000000000:i32)", "line 2 column 7: `3000000000:i32` is out of range for i32"),
        ("(expr 9223372036854775808)", "line 2 column 7: `9223372036854775808` is out of range for i64"),
        ("(expr 1e999)", "line 2 column 7: `1e999` is out of range (write `inf` for infinity)"),
        ("(expr 12abc)", "line 2 column 7: `12abc` is not a number"),
        ("(expr 1.2.3)", "line 2 column 7: `1.2.3` is not a number"),
        ("(expr 1e)", "line 2 column 7: `1e` is not a number"),
        ("(expr x-y)", "line 2 column 7: `x-y` is not a constant or a name"),
        ("(expr :neg)", "line 2 column 7: unexpected keyword `:neg` where an expression is expected"),
        ("(expr (c128 1 2))", "line 2 column 13: expected a float such as 1.0 in a complex constant, found `1`"),
        ("(expr (c64 1.0:f32 2.0))", "line 2 column 12: expected a float such as 1.0 in a complex constant, found `1.0:f32`"),
        ("(expr (c64 1.0))", "line 2 column 15: missing the imaginary part in `(c64 ...)`"),
        ("(expr (cast (list) x))", "line 2 column 13: unknown type `(list ...)`"),
        ("(expr (zeros f64 3))", "line 2 column 14: expected an array type, found `f64`"),
        ("(expr (fill f64[1,row]))", "line 2 column 23: missing the fill value in `(fill ...)`"),
        ("(expr (dim a x))", "line 2 column 14: expected a literal index (a non-negative integer), found `x`"),
        ("(expr (tget a))", "line 2 column 14: missing the index in `(tget ...)`"),
        ("(expr (range 1))", "line 2 column 15: missing the stop (or `_`) in `(range ...)`"),
        ("(expr (range 1 2 3 4))", "line 2 column 20: unexpected `4` in `(range ...)`"),
        ("(expr (call 3 x))", "line 2 column 13: expected the function name (a name), found `3`"),
        ("(expr (map))", "line 2 column 11: missing the function name in `(map ...)`"),
        ("(expr (index a 1 :view 2))", "line 2 column 24: unexpected `2` after the index flags"),
        ("(expr (index a 1 :bogus))", "line 2 column 18: unknown index flag `:bogus` (expected :neg, :flat, :nocheck or :view)"),
        ("(expr (index a 1 :view :view))", "line 2 column 24: index flag `:view` given twice"),
        ("(expr (atomic-add a 0))", "line 2 column 22: missing `:value ...` in `(atomic-add ...)`"),
        ("(expr (atomic-add a 0 :val 1))", "line 2 column 23: expected `:value` in `(atomic-add ...)`, found `:val`"),
        ("(expr (atomic-cas a 0 :new 1 :expected 0))", "line 2 column 23: expected `:expected` in `(atomic-cas ...)`, found `:new`"),
        ("(expr (atomic-cas a 0 :expected 0 :new 1 2))", "line 2 column 42: unexpected `2` in `(atomic-cas ...)`"),
        ("(expr ((sqrt) x))", "line 2 column 8: expected a name at the head of an expression, found a list"),
    ];
    for (body, message) in cases {
        assert_eq!(body_error(body), message, "{body}");
    }
}

#[test]
fn columns_count_characters_not_bytes() {
    assert_eq!(
        body_error("(set x 1.0) ; ünïcödé\n(set x ü)"),
        "line 3 column 8: `ü` is not a constant or a name"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("(expr {}x{})", "(neg ".repeat(500), ")".repeat(500));
    assert!(
        body_error(&deep).ends_with("lists nested more than 256 deep"),
        "{}",
        body_error(&deep)
    );
    // Just under the limit parses, prints and parses again.
    let depth = MAX_DEPTH - 5;
    let src = format!(
        "(module m :index-base 0 (function f ((x f64)) (f64) (locals) (return {}x{})))",
        "(neg ".repeat(depth),
        ")".repeat(depth)
    );
    let m = parse(&src);
    assert_eq!(parse(&print_module(&m)), m);
}

use velociraptor::vrir::text::MAX_DEPTH;

// ------------------------------------------------------------------ robustness

/// A parse of arbitrary text gives a module or a parse error that names a position.
fn assert_parses_or_fails_cleanly(src: &str) {
    match parse_module(src) {
        Ok(m) => assert_round_trip(&m),
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Parse);
            assert!(e.message.starts_with("line "), "{}", e.message);
            assert!(e.message.contains(" column "), "{}", e.message);
        }
    }
}

#[test]
fn truncated_programs_never_panic() {
    for (i, _) in STATEMENTS.char_indices() {
        assert_parses_or_fails_cleanly(&STATEMENTS[..i]);
    }
}

#[test]
fn programs_with_one_character_deleted_never_panic() {
    for (i, c) in STATEMENTS.char_indices() {
        let mutated = format!("{}{}", &STATEMENTS[..i], &STATEMENTS[i + c.len_utf8()..]);
        assert_parses_or_fails_cleanly(&mutated);
    }
}

#[test]
fn programs_with_one_character_replaced_never_panic() {
    for (i, c) in EXPRESSIONS.char_indices() {
        for replacement in ["(", ")", ":", " ", "x", "-", "9", "."] {
            let mutated = format!(
                "{}{replacement}{}",
                &EXPRESSIONS[..i],
                &EXPRESSIONS[i + c.len_utf8()..]
            );
            assert_parses_or_fails_cleanly(&mutated);
        }
    }
}

// ------------------------------------------------------------------ random modules

/// Random ASTs (not necessarily well-typed: the text form is syntax only) for the
/// round-trip property. Names are plain names, including words of the language.
mod random {
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;
    use proptest::sample::select;
    use proptest::strategy::{BoxedStrategy, Union};
    use velociraptor::vrir::*;

    pub fn name() -> BoxedStrategy<String> {
        let words = [
            "x", "y", "a.b", "_t", "i2", "set", "index", "sum", "f64", "range", "module", "block",
            "locals",
        ];
        select(words.to_vec()).prop_map(String::from).boxed()
    }

    fn scalar() -> impl Strategy<Value = ScalarType> {
        select(ScalarType::ALL.to_vec())
    }

    fn array_type() -> impl Strategy<Value = ArrayType> {
        (
            scalar(),
            0u32..4,
            select(vec![Layout::Row, Layout::Col, Layout::Strided]),
        )
            .prop_map(|(elem, ndims, layout)| ArrayType {
                elem,
                ndims,
                layout,
            })
    }

    pub fn ty() -> BoxedStrategy<Type> {
        let leaf = prop_oneof![
            scalar().prop_map(Type::scalar),
            array_type().prop_map(Type::Array),
            Just(Type::Range),
            (0u32..4).prop_map(|ndims| Type::Domain { ndims }),
            Just(Type::Void),
        ];
        leaf.prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                vec(inner.clone(), 0..3).prop_map(|items| Type::Tuple { items }),
                (vec(inner.clone(), 0..3), vec(inner, 0..2))
                    .prop_map(|(params, results)| Type::Func { params, results }),
            ]
        })
        .boxed()
    }

    fn literal() -> impl Strategy<Value = Literal> {
        prop_oneof![
            any::<bool>().prop_map(Literal::Bool),
            any::<i32>().prop_map(Literal::I32),
            any::<i64>().prop_map(Literal::I64),
            any::<f32>().prop_map(Literal::F32),
            any::<f64>().prop_map(Literal::F64),
            any::<[f32; 2]>().prop_map(Literal::C64),
            any::<[f64; 2]>().prop_map(Literal::C128),
        ]
    }

    fn flags() -> impl Strategy<Value = IndexFlags> {
        any::<[bool; 4]>().prop_map(|[negative, flatten, check, view]| IndexFlags {
            negative,
            flatten,
            check,
            view,
        })
    }

    fn boxed(e: Expr) -> Box<Expr> {
        Box::new(e)
    }

    pub fn expr() -> BoxedStrategy<Expr> {
        let leaf = prop_oneof![
            literal().prop_map(|value| Expr::Const { value }),
            name().prop_map(|name| Expr::Var { name }),
            Just(Expr::Range {
                start: None,
                stop: None,
                step: None
            }),
        ];
        leaf.prop_recursive(4, 48, 4, |e| {
            let es = || vec(e.clone(), 0..3);
            let arms: Vec<BoxedStrategy<Expr>> = vec![
                (select(vec![UnOp::Neg, UnOp::Not]), e.clone())
                    .prop_map(|(op, a)| Expr::Unary { op, arg: boxed(a) })
                    .boxed(),
                (select(BinOp::ALL.to_vec()), e.clone(), e.clone())
                    .prop_map(|(op, l, r)| Expr::binary(op, l, r))
                    .boxed(),
                (ty(), e.clone())
                    .prop_map(|(to, a)| Expr::Cast { to, arg: boxed(a) })
                    .boxed(),
                (name(), es())
                    .prop_map(|(func, args)| Expr::Call { func, args })
                    .boxed(),
                (select(LibFn::ALL.to_vec()), vec(e.clone(), 2))
                    .prop_map(|(func, mut args)| {
                        args.truncate(func.arity());
                        Expr::Lib { func, args }
                    })
                    .boxed(),
                (
                    select(ReduceOp::ALL.to_vec()),
                    e.clone(),
                    option::of(0u32..3),
                    option::of(select(Accum::ALL.to_vec())),
                )
                    .prop_map(|(op, a, axis, acc)| Expr::Reduce {
                        op,
                        arg: boxed(a),
                        axis,
                        acc,
                    })
                    .boxed(),
                (
                    select(ScanOp::ALL.to_vec()),
                    e.clone(),
                    option::of(select(Accum::ALL.to_vec())),
                )
                    .prop_map(|(op, a, acc)| Expr::Scan {
                        op,
                        arg: boxed(a),
                        acc,
                    })
                    .boxed(),
                (
                    prop_oneof![
                        Just(AllocInit::Zeros),
                        Just(AllocInit::Ones),
                        Just(AllocInit::Empty),
                        e.clone().prop_map(|v| AllocInit::Fill { value: boxed(v) }),
                    ],
                    array_type(),
                    es(),
                )
                    .prop_map(|(init, ty, dims)| Expr::Alloc { init, ty, dims })
                    .boxed(),
                (e.clone(), 0u32..4)
                    .prop_map(|(a, axis)| Expr::Dim {
                        arg: boxed(a),
                        axis,
                    })
                    .boxed(),
                (
                    option::of(e.clone()),
                    option::of(e.clone()),
                    option::of(e.clone()),
                )
                    .prop_map(|(start, stop, step)| Expr::Range {
                        start: start.map(boxed),
                        stop: stop.map(boxed),
                        step: step.map(boxed),
                    })
                    .boxed(),
                es().prop_map(|ranges| Expr::Domain { ranges }).boxed(),
                es().prop_map(|items| Expr::Tuple { items }).boxed(),
                (e.clone(), 0u32..3)
                    .prop_map(|(a, index)| Expr::TupleGet {
                        arg: boxed(a),
                        index,
                    })
                    .boxed(),
                (name(), es())
                    .prop_map(|(func, args)| Expr::Map { func, args })
                    .boxed(),
                (e.clone(), es(), flags())
                    .prop_map(|(a, indices, flags)| Expr::Index {
                        array: boxed(a),
                        indices,
                        flags,
                    })
                    .boxed(),
                (name(), es(), e.clone())
                    .prop_map(|(array, indices, v)| Expr::AtomicAdd {
                        array,
                        indices,
                        value: boxed(v),
                    })
                    .boxed(),
                (name(), es(), e.clone(), e.clone())
                    .prop_map(|(array, indices, x, n)| Expr::AtomicCas {
                        array,
                        indices,
                        expected: boxed(x),
                        new: boxed(n),
                    })
                    .boxed(),
            ];
            Union::new(arms)
        })
        .boxed()
    }

    fn lvalue() -> impl Strategy<Value = LValue> {
        prop_oneof![
            name().prop_map(|name| LValue::Var { name }),
            (name(), vec(expr(), 0..3), flags()).prop_map(|(array, indices, flags)| {
                LValue::Index {
                    array,
                    indices,
                    flags,
                }
            }),
        ]
    }

    fn simple_stmt() -> BoxedStrategy<StmtKind> {
        let var = || name();
        prop_oneof![
            (vec(lvalue(), 0..3), expr())
                .prop_map(|(targets, value)| StmtKind::Assign { targets, value }),
            Just(StmtKind::Break),
            Just(StmtKind::Continue),
            vec(expr(), 0..3).prop_map(|values| StmtKind::Return { values }),
            expr().prop_map(|expr| StmtKind::Expr { expr }),
            (var(), vec(expr(), 0..3)).prop_map(|(var, dims)| StmtKind::Alloc { var, dims }),
            var().prop_map(|var| StmtKind::Free { var }),
            var().prop_map(|var| StmtKind::RefIncr { var }),
            var().prop_map(|var| StmtKind::RefDecr { var }),
        ]
        .boxed()
    }

    pub fn stmt() -> BoxedStrategy<Stmt> {
        let with_line = |kind: BoxedStrategy<StmtKind>| {
            (kind, option::of(any::<u32>()))
                .prop_map(|(kind, line)| Stmt { kind, line })
                .boxed()
        };
        with_line(simple_stmt())
            .prop_recursive(3, 16, 3, move |s| {
                let block = (any::<bool>(), vec(s, 0..3))
                    .prop_map(|(on_gpu, stmts)| Block { on_gpu, stmts });
                let compound = prop_oneof![
                    block.clone().prop_map(StmtKind::Block),
                    (expr(), block.clone(), option::of(block.clone()))
                        .prop_map(|(cond, then, els)| StmtKind::If { cond, then, els }),
                    (any::<bool>(), vec(name(), 0..3), expr(), block.clone()).prop_map(
                        |(par, vars, domain, body)| {
                            if par {
                                StmtKind::Parfor { vars, domain, body }
                            } else {
                                StmtKind::For { vars, domain, body }
                            }
                        }
                    ),
                    (expr(), block).prop_map(|(cond, body)| StmtKind::While { cond, body }),
                ];
                (compound, option::of(any::<u32>())).prop_map(|(kind, line)| Stmt { kind, line })
            })
            .boxed()
    }

    fn function() -> impl Strategy<Value = Function> {
        let param = (name(), ty(), any::<bool>()).prop_map(|(name, ty, restrict)| Param {
            name,
            ty,
            restrict,
        });
        let local = (name(), ty()).prop_map(|(name, ty)| Local { name, ty });
        (
            name(),
            vec(param, 0..3),
            vec(ty(), 0..3),
            vec(local, 0..3),
            vec(stmt(), 0..4),
            option::of(any::<u32>()),
        )
            .prop_map(|(name, params, results, locals, body, line)| Function {
                name,
                params,
                results,
                locals,
                body,
                line,
            })
    }

    pub fn module() -> impl Strategy<Value = Module> {
        (name(), 0u8..2, vec(function(), 0..3)).prop_map(|(name, index_base, functions)| Module {
            name,
            index_base,
            functions,
        })
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    #[test]
    fn random_modules_round_trip(m in random::module()) {
        assert_round_trip(&m);
    }

    #[test]
    fn random_expressions_round_trip_on_one_line(e in random::expr()) {
        let line = print_expr(&e);
        proptest::prop_assert!(!line.contains('\n'));
        let src = format!("(module m :index-base 0 (function f () () (locals) (expr {line})))");
        let m = parse_module(&src).unwrap();
        let StmtKind::Expr { expr } = &m.functions[0].body[0].kind else { panic!() };
        proptest::prop_assert_eq!(format!("{expr:?}"), format!("{e:?}"));
    }

    #[test]
    fn random_types_round_trip(t in random::ty()) {
        proptest::prop_assert_eq!(parse_type(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn arbitrary_text_never_panics(src in "[()a-z0-9:._ ;\n-]{0,200}") {
        assert_parses_or_fails_cleanly(&src);
    }
}
