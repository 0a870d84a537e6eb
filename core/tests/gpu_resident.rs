//! Residency (issue 19): arrays stay on the device across sections of one call, and
//! across calls for arguments the host passes as stable, while nothing on the CPU
//! writes them; a CPU write between two sections, or a host write between two calls
//! (announced with `gpu::resident::forget`, the C API's `vr_array_changed`), makes the
//! next section read the new values. Counted with the section report's transfers
//! (`GpuEngine::section_stats`). Runs on PoCL here and in CI; without a device the
//! results are checked and the counts skipped. Expected values are hand-computed.

#![allow(clippy::result_large_err)]

use std::sync::Arc;
use velociraptor::cpu::{compile_offloaded, CompiledModule, CpuOptions, RawResult};
use velociraptor::gpu::engine::{GpuEngine, SectionStats};
use velociraptor::runtime::host::{HostArg, HostArray};
use velociraptor::runtime::offload::Offload;
use velociraptor::runtime::value::Scalar;
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

/// Tests share the process's device cache and the `VR_GPU_RESIDENT` variable.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn have_device() -> bool {
    velociraptor::gpu::device().is_ok()
}

/// Two sections in one call. The first makes b = a + 1; between them the CPU writes
/// a[0] when `w` is 1, or reads and writes b[1] (the first section's result) when `w`
/// is 2 (0: no write); the second makes c = a * b. Both b and c come back.
const TWO_SECTIONS: &str = r#"
(module res :index-base 0
  (function f ((a f64[1,row]) (n i64) (w i64)) (f64[1,row] f64[1,row])
    (locals (b f64[1,row]) (c f64[1,row]) (i i64))
    (set b (zeros f64[1,row] n))
    (set c (zeros f64[1,row] n))
    (gpu
      (parfor (i) (range 0 (- n 1))
        (block (set (index b i) (+ (index a i) 1.0)))))
    (if (== w 1)
      (block (set (index a 0) 100.0)))
    (if (== w 2)
      (block (set (index b 1) (* (index b 1) 10.0))))
    (gpu
      (parfor (i) (range 0 (- n 1))
        (block (set (index c i) (* (index a i) (index b i))))))
    (return b c)))
"#;

/// A section reading a stable argument: b = a * 2 (a library kernel: b is never
/// uploaded), its result read back by the caller.
const ONE_SECTION: &str = r#"
(module res1 :index-base 0
  (function g ((a f64[1,row])) (f64[1,row])
    (locals (b f64[1,row]))
    (gpu (set b (* a 2.0)))
    (return b)))
"#;

fn compile(src: &str) -> (CompiledModule, Arc<GpuEngine>) {
    let m = velociraptor::backend::load(src).unwrap();
    let plan = Arc::new(velociraptor::gpu::plan(&m));
    let engine = Arc::new(GpuEngine::new(plan.clone(), m.index_base));
    let compiled = compile_offloaded(
        &m,
        CpuOptions::default(),
        Offload {
            plan: Arc::new(plan.offload.clone()),
            engine: engine.clone(),
        },
    )
    .unwrap();
    (compiled, engine)
}

fn host(a: &mut [f64], stable: bool) -> HostArg {
    HostArg::Array(HostArray {
        data: a.as_mut_ptr() as *mut u8,
        ty: ArrayType::new(ScalarType::F64, 1, Layout::Row),
        dims: vec![a.len() as i64],
        strides: vec![1],
        writeable: true,
        stable,
    })
}

fn floats(r: &RawResult) -> Vec<f64> {
    match r {
        RawResult::Array(a) => {
            let n = a.dims[0] as usize;
            // SAFETY: a contiguous f64 result the call's arena still holds.
            unsafe { std::slice::from_raw_parts(a.data as *const f64, n).to_vec() }
        }
        other => panic!("not an array: {other:?}"),
    }
}

fn call(c: &CompiledModule, func: &str, args: &[HostArg]) -> Vec<Vec<f64>> {
    // SAFETY: every array argument is a live Vec for the whole call.
    unsafe {
        c.call_host(func, args, None, |raw| Ok(raw.iter().map(floats).collect()))
            .unwrap()
    }
}

fn stats(e: &GpuEngine) -> Vec<SectionStats> {
    e.section_stats().into_iter().map(|(_, s)| s).collect()
}

/// Uploads of each section since `before`.
fn uploads(e: &GpuEngine, before: &[SectionStats]) -> Vec<u64> {
    stats(e)
        .iter()
        .zip(before)
        .map(|(s, b)| s.uploads - b.uploads)
        .collect()
}

fn with_residency<R>(on: bool, f: impl FnOnce() -> R) -> R {
    if on {
        std::env::remove_var("VR_GPU_RESIDENT");
    } else {
        std::env::set_var("VR_GPU_RESIDENT", "off");
    }
    let r = f();
    std::env::remove_var("VR_GPU_RESIDENT");
    r
}

#[test]
fn the_second_section_of_a_call_reuses_what_the_first_left_on_the_device() {
    let _s = serial();
    let (c, e) = compile(TWO_SECTIONS);
    let mut a = vec![1.0, 2.0, 3.0];
    let before = stats(&e);
    let r = with_residency(true, || {
        call(
            &c,
            "f",
            &[
                host(&mut a, false),
                HostArg::Scalar(Scalar::I64(3)),
                HostArg::Scalar(Scalar::I64(0)),
            ],
        )
    });
    assert_eq!(r, vec![vec![2.0, 3.0, 4.0], vec![2.0, 6.0, 12.0]]);
    if have_device() {
        // Section 1 uploads a and b (a parfor's written array goes up: it may not write
        // every element); section 2 only c: a and b stayed on the device.
        assert_eq!(uploads(&e, &before), vec![2, 1]);
    }
    // Residency off: section 2 uploads all three.
    let before = stats(&e);
    let r = with_residency(false, || {
        call(
            &c,
            "f",
            &[
                host(&mut a, false),
                HostArg::Scalar(Scalar::I64(3)),
                HostArg::Scalar(Scalar::I64(0)),
            ],
        )
    });
    assert_eq!(r, vec![vec![2.0, 3.0, 4.0], vec![2.0, 6.0, 12.0]]);
    if have_device() {
        assert_eq!(uploads(&e, &before), vec![2, 3]);
    }
}

#[test]
fn a_cpu_write_between_two_sections_reaches_the_second() {
    let _s = serial();
    let (c, e) = compile(TWO_SECTIONS);
    let mut a = vec![1.0, 2.0, 3.0];
    let before = stats(&e);
    let r = with_residency(true, || {
        call(
            &c,
            "f",
            &[
                host(&mut a, false),
                HostArg::Scalar(Scalar::I64(3)),
                HostArg::Scalar(Scalar::I64(1)),
            ],
        )
    });
    // b = a + 1 before the write; c[0] = 100 * 2 reads the CPU's new a[0].
    assert_eq!(r, vec![vec![2.0, 3.0, 4.0], vec![200.0, 6.0, 12.0]]);
    assert_eq!(a, vec![100.0, 2.0, 3.0]);
    if have_device() {
        // a went up again (the CPU wrote it), b did not, c is new.
        assert_eq!(uploads(&e, &before), vec![2, 2]);
    }
    // The CPU reads what the first section wrote and changes it: the second section
    // reads the CPU's value.
    let mut a = vec![1.0, 2.0, 3.0];
    let before = stats(&e);
    let r = with_residency(true, || {
        call(
            &c,
            "f",
            &[
                host(&mut a, false),
                HostArg::Scalar(Scalar::I64(3)),
                HostArg::Scalar(Scalar::I64(2)),
            ],
        )
    });
    assert_eq!(r, vec![vec![2.0, 30.0, 4.0], vec![2.0, 60.0, 12.0]]);
    if have_device() {
        // b went up again, a did not, c is new.
        assert_eq!(uploads(&e, &before), vec![2, 2]);
    }
}

#[test]
fn a_stable_argument_goes_up_once_over_many_calls_until_the_host_changes_it() {
    let _s = serial();
    velociraptor::gpu::resident::forget_all();
    let (c, e) = compile(ONE_SECTION);
    let mut a = vec![1.0, 2.0, 3.0, 4.0];
    let before = stats(&e);
    for k in 0..4 {
        let r = with_residency(true, || call(&c, "g", &[host(&mut a, true)]));
        assert_eq!(r, vec![vec![2.0, 4.0, 6.0, 8.0]], "call {k}");
    }
    if have_device() {
        let s = &stats(&e)[0];
        assert_eq!(
            s.uploads - before[0].uploads,
            1,
            "a went up at the first call only"
        );
        // The result comes home at every call: the caller reads it.
        assert_eq!(s.downloads - before[0].downloads, 4);
    }
    // The host writes a, and says so first: the next call uploads it again and reads
    // the new values.
    let lo = a.as_ptr() as usize;
    velociraptor::gpu::resident::forget(lo, lo + 4 * 8);
    a[2] = 10.0;
    let before = stats(&e);
    let r = with_residency(true, || call(&c, "g", &[host(&mut a, true)]));
    assert_eq!(r, vec![vec![2.0, 4.0, 20.0, 8.0]]);
    if have_device() {
        assert_eq!(uploads(&e, &before), vec![1]);
    }
    // An argument not passed as stable goes up at every call.
    let before = stats(&e);
    for _ in 0..2 {
        let r = with_residency(true, || call(&c, "g", &[host(&mut a, false)]));
        assert_eq!(r, vec![vec![2.0, 4.0, 20.0, 8.0]]);
    }
    if have_device() {
        assert_eq!(uploads(&e, &before), vec![2]);
    }
    // Residency off: stable or not, every call uploads.
    let before = stats(&e);
    for _ in 0..2 {
        with_residency(false, || call(&c, "g", &[host(&mut a, true)]));
    }
    if have_device() {
        assert_eq!(uploads(&e, &before), vec![2]);
    }
    velociraptor::gpu::resident::forget_all();
}

#[test]
fn uploads_overlapping_kernels_give_the_same_results_and_counts_as_one_queue() {
    let _s = serial();
    let (c, e) = compile(TWO_SECTIONS);
    let mut seen = Vec::new();
    for overlap in [true, false] {
        if overlap {
            std::env::remove_var("VR_GPU_OVERLAP");
        } else {
            std::env::set_var("VR_GPU_OVERLAP", "off");
        }
        let mut got = Vec::new();
        for w in 0..3 {
            let mut a: Vec<f64> = (0..5000).map(|i| (i % 17) as f64).collect();
            let before = stats(&e);
            let r = call(
                &c,
                "f",
                &[
                    host(&mut a, false),
                    HostArg::Scalar(Scalar::I64(5000)),
                    HostArg::Scalar(Scalar::I64(w)),
                ],
            );
            got.push((r, a, uploads(&e, &before)));
        }
        seen.push(got);
    }
    std::env::remove_var("VR_GPU_OVERLAP");
    assert!(
        seen[0] == seen[1],
        "the transfer queue changed a result or a count"
    );
    // Spot check by hand: w = 2 makes b[1] = (1 + 1) * 10 and c[1] = 1 * 20.
    assert_eq!(seen[0][2].0[1][1], 20.0);
}

/// A function that writes its argument on the CPU before its section.
const WRITES_FIRST: &str = r#"
(module res2 :index-base 0
  (function w ((a f64[1,row])) (f64[1,row])
    (locals (b f64[1,row]))
    (set (index a 0) (+ (index a 0) 1.0))
    (gpu (set b (* a 2.0)))
    (return b)))
"#;

#[test]
fn a_stable_argument_the_call_itself_writes_is_never_read_stale() {
    // The C API never marks a written parameter stable; a Rust caller of `call_host`
    // might. The kept copy is adopted before the call's CPU code runs, so the write
    // before the section makes it stale and the section reads the new value.
    let _s = serial();
    velociraptor::gpu::resident::forget_all();
    let (c, _e) = compile(WRITES_FIRST);
    let mut a = vec![1.0, 2.0];
    let r = with_residency(true, || call(&c, "w", &[host(&mut a, true)]));
    assert_eq!(r, vec![vec![4.0, 4.0]]);
    let r = with_residency(true, || call(&c, "w", &[host(&mut a, true)]));
    assert_eq!(r, vec![vec![6.0, 4.0]]);
    assert_eq!(a, vec![3.0, 2.0]);
    velociraptor::gpu::resident::forget_all();
}
