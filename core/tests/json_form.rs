//! The JSON form of VRIR (docs/vrir-json.md): the documented example is what the code
//! prints, text and JSON give the same module, and malformed JSON is a parse error with a
//! position, never a panic.

use velociraptor::vrir::json::{from_json, to_json};
use velociraptor::vrir::text::{parse_module, print_module};
use velociraptor::vrir::*;
use velociraptor::ErrorKind;

const DOC: &str = include_str!("../../docs/vrir-json.md");

/// The body of the first fenced block of `lang` in the doc.
fn fenced(lang: &str) -> &'static str {
    let open = format!("```{lang}\n");
    let start = DOC
        .find(&open)
        .unwrap_or_else(|| panic!("no ```{lang} block"))
        + open.len();
    let len = DOC[start..].find("```").expect("unclosed block");
    &DOC[start..start + len]
}

/// Equality on the Debug form: exact for floats, and NaN equals NaN.
fn assert_same(a: &Module, b: &Module) {
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn doc_example_is_what_the_code_prints() {
    let text = fenced("vrir");
    let json = fenced("json");
    let from_text = parse_module(text).unwrap();
    let from_json_form = from_json(json).unwrap();
    assert_eq!(from_text, from_json_form);
    assert_eq!(to_json(&from_text) + "\n", json);
    assert_eq!(print_module(&from_json_form), text);
}

#[test]
fn doc_example_has_the_values_written_by_hand() {
    let m = from_json(fenced("json")).unwrap();
    assert_eq!(m.name, "dot");
    assert_eq!(m.index_base, 0);
    let f = m.function("dot").unwrap();
    assert_eq!(f.line, Some(1));
    assert!(!f.params[0].restrict && f.params[1].restrict);
    assert_eq!(f.results, vec![Type::F64]);
    assert_eq!(f.body.len(), 3);
    assert_eq!(f.body[0].line, Some(2));
}

/// Text -> Module -> JSON -> Module gives the module back, for the text-form samples.
#[test]
fn text_samples_survive_json() {
    let samples = [
        include_str!("text_form/statements.vrir"),
        include_str!("text_form/expressions.vrir"),
        include_str!("text_form/names.vrir"),
        include_str!("text_form/long.vrir"),
    ];
    for src in samples {
        let m = parse_module(src).unwrap();
        let back = from_json(&to_json(&m)).unwrap();
        assert_same(&back, &m);
        assert_eq!(print_module(&back), print_module(&m));
    }
}

#[test]
fn optional_fields_default_when_left_out() {
    let json = r#"{"name": "m", "index_base": 1, "functions": [{
        "name": "f",
        "params": [{"name": "a", "ty": {"kind": "array", "elem": "f64", "ndims": 1, "layout": "col"}}],
        "results": [],
        "locals": [],
        "body": [
            {"stmt": "expr", "expr": {"expr": "index", "array": {"expr": "var", "name": "a"},
                                      "indices": [{"expr": "range"}]}},
            {"stmt": "return", "values": []}
        ]}]}"#;
    let m = from_json(json).unwrap();
    let expected = "\
(module m :index-base 1
  (function f ((a f64[1,col])) ()
    (locals)
    (expr (index a :))
    (return)))
";
    assert_eq!(print_module(&m), expected);
}

#[test]
fn non_finite_floats_travel_as_strings() {
    let m = parse_module(
        "(module m :index-base 0 (function f () () (locals) (expr (tuple nan -inf:f32 (c128 inf 0.5)))))",
    )
    .unwrap();
    let json = to_json(&m);
    assert!(json.contains(r#""value": "nan""#), "{json}");
    assert!(json.contains(r#""value": "-inf""#), "{json}");
    assert!(json.contains(r#""re": "inf""#), "{json}");
    assert_same(&from_json(&json).unwrap(), &m);
}

fn json_error(src: &str) -> String {
    let e = from_json(src).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Parse);
    e.message
}

#[test]
fn malformed_json_is_a_parse_error_with_a_position() {
    let m = json_error("{\"name\": \"m\",\n \"index_base\": 0,\n \"functions\": [}");
    assert!(m.starts_with("JSON at line 3 column 16:"), "{m}");
    let m = json_error("{\"name\": \"m\", \"index_base\": 0}");
    assert!(
        m.contains("missing field `functions`") && m.contains("line 1 column"),
        "{m}"
    );
    let m = json_error("{\"name\": \"m\", \"index_base\": 0, \"functions\": [{\"name\": \"f\", \"params\": [],\n\"results\": [{\"kind\": \"matrix\"}], \"locals\": [], \"body\": []}]}");
    assert!(
        m.contains("unknown variant `matrix`") && m.contains("line 2"),
        "{m}"
    );
    let m = json_error("");
    assert!(m.starts_with("JSON at line 1 column 0:"), "{m}");
    let m = json_error("{\"name\": \"m\", \"index_base\": 300, \"functions\": []}");
    assert!(m.contains("300"), "{m}");
}

#[test]
fn deeply_nested_json_is_an_error_not_a_crash() {
    let depth = 100_000;
    let src = format!(
        "{{\"name\": \"m\", \"index_base\": 0, \"functions\": [{{\"name\": \"f\", \"params\": [], \"results\": [], \"locals\": [], \"body\": [{{\"stmt\": \"expr\", \"expr\": {}{{\"expr\": \"var\", \"name\": \"x\"}}{}}}]}}]}}",
        "{\"expr\": \"unary\", \"op\": \"neg\", \"arg\": ".repeat(depth),
        "}".repeat(depth)
    );
    let m = json_error(&src);
    assert!(m.contains("recursion limit exceeded"), "{m}");
}

#[test]
fn truncated_json_never_panics() {
    let json = fenced("json").trim_end();
    for (i, _) in json.char_indices() {
        let e = from_json(&json[..i]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Parse);
        assert!(
            e.message.contains(" line ") && e.message.contains(" column "),
            "{}",
            e.message
        );
    }
}

#[test]
fn json_with_one_character_deleted_never_panics() {
    let json = fenced("json");
    for (i, c) in json.char_indices() {
        let mutated = format!("{}{}", &json[..i], &json[i + c.len_utf8()..]);
        if let Err(e) = from_json(&mutated) {
            assert_eq!(e.kind, ErrorKind::Parse);
            assert!(
                e.message.contains(" line ") && e.message.contains(" column "),
                "{}",
                e.message
            );
        }
    }
}
