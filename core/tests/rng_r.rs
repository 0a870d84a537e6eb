//! The built-in random stream (`runtime::rng`) against R itself: for several seeds, R
//! (Rscript, during this test) draws uniforms, normals, exponentials, a permutation and
//! indices below 1e6 and 2^40 after `set.seed`, and prints them with 17 significant
//! digits and its `.Random.seed` afterwards; the Rust stream, seeded the same way, must
//! give every number bit for bit and end in the same state.

use std::process::Command;
use velociraptor::runtime::rng::RStream;

const SEEDS: [i32; 5] = [1, 42, -7, 2147483647, 0];
const N: usize = 1000;

const SCRIPT: &str = r#"
for (s in c(1L, 42L, -7L, 2147483647L, 0L)) {
  set.seed(s)
  out <- list(U = runif(1000), N = rnorm(1000), E = rexp(1000), P = sample(1000),
              I = sample(1e6, 300, replace = TRUE), B = sample(2^40, 50, replace = TRUE))
  for (k in names(out)) cat(k, s, sprintf("%.17g", as.double(out[[k]])), "\n")
  cat("S", s, .Random.seed, "\n")
}
"#;

/// One line of R's output: its tag, seed and numbers.
fn r_lines() -> Vec<(String, i32, Vec<f64>)> {
    let path = std::env::temp_dir().join(format!("vr_rng_r_{}.R", std::process::id()));
    std::fs::write(&path, SCRIPT).unwrap();
    let out = Command::new("Rscript")
        .arg("--vanilla")
        .arg(&path)
        .output()
        .expect("Rscript runs (R is part of the test setup)");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Rscript failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace();
            let tag = w.next().unwrap().to_string();
            let seed: i32 = w.next().unwrap().parse().unwrap();
            let nums = w.map(|x| x.parse::<f64>().unwrap()).collect();
            (tag, seed, nums)
        })
        .collect()
}

/// What R's script draws, from the Rust stream.
fn rust_draws(seed: i32) -> Vec<(String, Vec<f64>)> {
    let mut s = RStream::seeded(seed);
    let mut out = Vec::new();
    out.push(("U".to_string(), (0..N).map(|_| s.unif_rand()).collect()));
    out.push(("N".to_string(), (0..N).map(|_| s.norm_rand()).collect()));
    out.push(("E".to_string(), (0..N).map(|_| s.exp_rand()).collect()));
    // sample(1000): do_sample's permutation.
    let mut x: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let mut n = N;
    let mut perm = Vec::with_capacity(N);
    for _ in 0..N {
        let j = s.unif_index(n as f64) as usize;
        perm.push(x[j] + 1.0);
        n -= 1;
        x[j] = x[n];
    }
    out.push(("P".to_string(), perm));
    out.push((
        "I".to_string(),
        (0..300).map(|_| s.unif_index(1e6) + 1.0).collect(),
    ));
    out.push((
        "B".to_string(),
        (0..50).map(|_| s.unif_index(2f64.powi(40)) + 1.0).collect(),
    ));
    out.push((
        "S".to_string(),
        s.r_seed().into_iter().map(f64::from).collect(),
    ));
    out
}

#[test]
fn built_in_stream_is_rs_default_generator() {
    let r = r_lines();
    assert_eq!(r.len(), SEEDS.len() * 7, "R printed {} lines", r.len());
    for seed in SEEDS {
        for (tag, ours) in rust_draws(seed) {
            let theirs = &r
                .iter()
                .find(|(t, s, _)| *t == tag && *s == seed)
                .unwrap_or_else(|| panic!("R printed no {tag} line for seed {seed}"))
                .2;
            assert_eq!(ours.len(), theirs.len(), "{tag} for seed {seed}: lengths");
            for (k, (a, b)) in ours.iter().zip(theirs).enumerate() {
                assert!(
                    a.to_bits() == b.to_bits(),
                    "{tag}[{k}] for seed {seed}: ours {a:e}, R's {b:e}"
                );
            }
        }
    }
}
