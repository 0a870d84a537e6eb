//! Property tests over random well-typed modules (tests/common/gen.rs): they verify,
//! survive the text and JSON round trips unchanged, and no mangling of their printed
//! forms makes the parser, the JSON reader or the verifier panic.
//!
//! `PROPTEST_CASES=N` sets the number of cases, `VR_LONG_TESTS=1` multiplies the
//! default by ten.

mod common;

use common::gen::{module_strategy, GenConfig, Generated};
use proptest::prelude::*;
use velociraptor::vrir::json::{from_json, to_json};
use velociraptor::vrir::text::{parse_module, print_module};
use velociraptor::vrir::verify::verify_module;

fn config(default_cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: common::cases(default_cases),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// One edit of a byte string; positions are taken modulo its length.
#[derive(Clone, Debug)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    /// Copy a span to another place (duplicates parentheses, atoms, whole statements).
    Duplicate(usize, usize, usize),
    Truncate(usize),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    // Bytes that matter to the syntax are more likely than arbitrary ones.
    let byte = prop_oneof![
        prop::sample::select(b"() ;:.-_[],0123456789aefinx\n\"{}".to_vec()),
        any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(p, b)| Edit::Replace(p, b)),
        (any::<usize>(), byte).prop_map(|(p, b)| Edit::Insert(p, b)),
        (any::<usize>(), 1..20usize).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<usize>(), 1..40usize, any::<usize>()).prop_map(|(p, n, q)| Edit::Duplicate(p, n, q)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len().max(1);
        match *e {
            Edit::Replace(p, b) if !bytes.is_empty() => bytes[p % len] = b,
            Edit::Insert(p, b) => bytes.insert(p % (bytes.len() + 1), b),
            Edit::Delete(p, n) if !bytes.is_empty() => {
                let start = p % len;
                let end = (start + n).min(bytes.len());
                bytes.drain(start..end);
            }
            Edit::Duplicate(p, n, q) if !bytes.is_empty() => {
                let start = p % len;
                let span: Vec<u8> = bytes[start..(start + n).min(bytes.len())].to_vec();
                let at = q % (bytes.len() + 1);
                bytes.splice(at..at, span);
            }
            Edit::Truncate(p) => bytes.truncate(p % len),
            _ => {}
        }
    }
    bytes
}

fn mutated_strategy() -> impl Strategy<Value = (Generated, Vec<Edit>)> {
    (
        module_strategy(GenConfig::default()),
        prop::collection::vec(edit_strategy(), 1..6),
    )
}

/// Parse, and when that works verify, print and re-parse: none of it may panic, and a
/// module that verifies prints to text that reads back to the same text.
fn survives(text: &str) -> Result<(), TestCaseError> {
    if let Ok(m) = parse_module(text) {
        if verify_module(&m).is_ok() {
            let printed = print_module(&m);
            let again = parse_module(&printed).map_err(|e| {
                TestCaseError::fail(format!("printed module does not parse: {e}\n{printed}"))
            })?;
            prop_assert_eq!(print_module(&again), printed);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn generated_modules_verify(g in module_strategy(GenConfig::default())) {
        if let Err(e) = verify_module(&g.module) {
            prop_assert!(false, "generated module does not verify: {e}\n{}", print_module(&g.module));
        }
    }

    #[test]
    fn text_round_trip_is_exact(g in module_strategy(GenConfig::default())) {
        let printed = print_module(&g.module);
        let parsed = parse_module(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        prop_assert_eq!(&parsed, &g.module, "{}", printed);
        prop_assert_eq!(print_module(&parsed), printed);
    }

    #[test]
    fn json_round_trip_is_exact(g in module_strategy(GenConfig::default())) {
        let json = to_json(&g.module);
        let back = from_json(&json).map_err(|e| TestCaseError::fail(format!("{e}\n{json}")))?;
        prop_assert_eq!(&back, &g.module);
        prop_assert_eq!(to_json(&back), json);
    }

    #[test]
    fn mutated_text_never_panics((g, edits) in mutated_strategy()) {
        let bytes = apply(print_module(&g.module).into_bytes(), &edits);
        survives(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn mutated_json_never_panics((g, edits) in mutated_strategy()) {
        let bytes = apply(to_json(&g.module).into_bytes(), &edits);
        if let Ok(m) = from_json(&String::from_utf8_lossy(&bytes)) {
            let _ = verify_module(&m);
        }
    }
}

#[test]
fn shrinking_the_tape_to_nothing_gives_the_smallest_module() {
    let g = common::gen::generate(&[], GenConfig::default());
    assert_eq!(
        print_module(&g.module),
        "(module gen :index-base 0\n  (function f0 () ()\n    (locals)\n    (return)))\n"
    );
    verify_module(&g.module).unwrap();
}

#[test]
fn the_generator_covers_the_constructs_it_promises() {
    // Over a fixed set of tapes, the printed programs use every construct at least once.
    let mut text = String::new();
    for seed in 0..300u32 {
        let tape: Vec<u32> = (0..3000u32)
            .map(|k| {
                k.wrapping_mul(2654435761)
                    .wrapping_add(seed.wrapping_mul(40503))
                    .rotate_left(seed % 31)
            })
            .collect();
        text.push_str(&print_module(
            &common::gen::generate(&tape, GenConfig::default()).module,
        ));
    }
    for construct in [
        "(for ",
        "(parfor ",
        "(atomic-add ",
        "(while ",
        "(if ",
        "(index ",
        "(call ",
        "(map ",
        "(mset ",
        "(sum ",
        "(matmul ",
        "(zeros ",
        "(cast ",
        "(break)",
        "(return ",
        ":index-base 1",
        "f64[2,col]",
        "(gpu",
        "(range _ _ -1)",
        "(+ (mod ",
        ":flat",
        "(sum (index ",
    ] {
        assert!(
            text.contains(construct),
            "no generated program uses `{construct}`"
        );
    }
    // Stores through slices and gathers, not only single elements.
    let writes = |what: &str| {
        text.lines()
            .any(|l| l.trim_start().starts_with("(set (index ") && l.contains(what))
    };
    assert!(
        writes("(range "),
        "no generated program stores through a slice"
    );
    assert!(
        writes("(+ (mod "),
        "no generated program stores through a gather"
    );
}

#[test]
#[ignore]
fn print_samples() {
    for seed in 0..3u32 {
        let tape: Vec<u32> = (0..3000u32)
            .map(|k| {
                k.wrapping_mul(2654435761)
                    .wrapping_add(seed.wrapping_mul(40503))
                    .rotate_left(seed % 31)
            })
            .collect();
        println!(
            "{}",
            print_module(&common::gen::generate(&tape, GenConfig::default()).module)
        );
    }
}
