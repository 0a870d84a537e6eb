//! The AFL++ harness: `vr-fuzz TARGET` runs the body of one target of
//! `velociraptor::fuzz_targets` on the inputs AFL++ gives it (persistent mode: many
//! inputs per process). `scripts/fuzz.sh TARGET SECONDS` builds and runs it.

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(body) = velociraptor::fuzz_targets::target(&name) else {
        let names: Vec<&str> = velociraptor::fuzz_targets::TARGETS
            .iter()
            .map(|(n, _)| *n)
            .collect();
        eprintln!("usage: vr-fuzz TARGET (one of: {})", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| {
        body(data);
    });
}
