//! Replays the fuzzing corpora (tests/fuzz/<target>/, kept by `scripts/fuzz.sh`: the
//! seeds and what AFL++ found, minimised with afl-cmin) and the regression inputs
//! (tests/fuzz/regressions/<target>/: every crash or hang AFL++ found, after its fix)
//! through the same target bodies the AFL++ harness runs (velociraptor::fuzz_targets).
//! A body panics on a bug; a replayed input that takes seconds shows as a slow test.
//! Fast: no AFL++ needed, a few thousand small inputs. docs/testing.md, "Fuzzing".

use std::path::{Path, PathBuf};
use velociraptor::fuzz_targets::{target, TARGETS};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuzz")
}

/// The files of one folder, sorted (an absent folder has none).
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// Every input of `dir` through target `name`; the panic names the file. On a thread
/// with the 8 MiB stack of a process's main thread, which the AFL++ harness runs on
/// (a test thread has 2 MiB, too little for the deepest inputs in this debug build).
fn replay(name: &str, dir: &Path) -> usize {
    let body = target(name).unwrap();
    let files = inputs(dir);
    let name = name.to_string();
    let count = files.len();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            for file in &files {
                let data = std::fs::read(file).unwrap();
                if std::panic::catch_unwind(|| body(&data)).is_err() {
                    panic!("fuzz target {name} panicked on {}", file.display());
                }
            }
        })
        .unwrap()
        .join()
        .unwrap_or_else(|_| panic!("replay failed"));
    count
}

#[test]
fn every_folder_names_a_target() {
    for dir in [fuzz_dir(), fuzz_dir().join("regressions")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if path.is_dir() && name != "regressions" {
                assert!(
                    target(&name).is_some(),
                    "{} is not a fuzz target",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn corpora_replay_without_panics() {
    for (name, _) in TARGETS {
        let n = replay(name, &fuzz_dir().join(name));
        assert!(n > 0, "tests/fuzz/{name} has no inputs");
    }
}

#[test]
fn regressions_replay_without_panics() {
    for (name, _) in TARGETS {
        replay(name, &fuzz_dir().join("regressions").join(name));
    }
}

/// What the inputs AFL++ found now give: R's own error for a repeated formal, a module
/// that verifies for `c(1, y[n])` with a vector `n`, and a clear refusal of a 1-d array
/// for MATLAB (whose arrays have two dimensions at least), and `sum(sum(x))` of a scalar
/// compiles (it overflowed the stack); the Julia cases below.
#[test]
fn inputs_found_by_fuzzing_get_clear_answers() {
    use velociraptor::frontend::types::Ty;
    use velociraptor::frontend::{julia, matlab, r};
    use velociraptor::vrir::{verify::verify_module, ScalarType};
    let vector = Ty::array(ScalarType::F64, 1);
    let e = r::compile("f <- function(a, a) a", "f", vec![vector]).unwrap_err();
    assert!(
        e.message.contains("repeated formal argument 'a'"),
        "{}",
        e.message
    );
    let m = r::compile(
        "f <- function(n) { y <- c(); c(1, y[n]) }",
        "f",
        vec![vector],
    )
    .unwrap();
    verify_module(&m).unwrap();
    let e = matlab::compile(
        "function y = f(x)\n  y = size(x, 2);\nend\n",
        "f",
        vec![vector],
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("MATLAB arrays have at least two dimensions"),
        "{}",
        e.message
    );
    // `sum(sum(x))` of a scalar recursed until the stack overflowed.
    let scalar = Ty::scalar(ScalarType::F64);
    let m = matlab::compile(
        "function y = g(A)\n  y = sum(sum(A)) + max(max(A));\nend\n",
        "g",
        vec![scalar],
    )
    .unwrap();
    verify_module(&m).unwrap();
    // MATLAB: `break` outside a loop and a repeated parameter are parse errors, as in Octave.
    let e = matlab::compile(
        "function y = f(x)\n  y = x;\n  break;\nend\n",
        "f",
        vec![scalar],
    )
    .unwrap_err();
    assert!(
        e.message.contains("`break` must appear within a loop"),
        "{}",
        e.message
    );
    let e = matlab::compile(
        "function y = f(x, k, k)\n  y = k;\nend\n",
        "f",
        vec![scalar],
    )
    .unwrap_err();
    assert!(
        e.message.contains("parameter `k` appears twice"),
        "{}",
        e.message
    );
    // Julia: a repeated parameter is refused as Julia refuses it; a constant defined
    // through itself is a global (its reader does not compile), no endless expansion.
    let e = julia::compile("t(y, y) = 0\n", "t", vec![scalar, scalar]).unwrap_err();
    assert!(
        e.message.contains("function argument name not unique"),
        "{}",
        e.message
    );
    assert!(julia::compile("w() = n ÷ 2\nn = n + 1\n", "w", vec![]).is_err());
    // `continue`/`break` outside a loop gave a module the verifier rejects (Julia and R
    // alike): now a clear error from the lowering, while loops keep theirs.
    let e = julia::compile("function g(x)\n    continue\n    return x\nend\n", "g", vec![scalar]).unwrap_err();
    assert!(e.message.contains("outside a loop"), "{}", e.message);
    let e = r::compile("f <- function(x) { if (x > 0) break; x }", "f", vec![scalar]).unwrap_err();
    assert!(e.message.contains("outside a loop"), "{}", e.message);
    let m = julia::compile("function g(x)\n    s = 0.0\n    for i in 1:3\n        i == 2 && continue\n        s += x\n    end\n    return s\nend\n", "g", vec![scalar]).unwrap();
    verify_module(&m).unwrap();
}
