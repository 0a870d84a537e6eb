//! Machine-readable results: every timed configuration of a run as one CSV row (kernel,
//! size, configuration, threads, median/min/max seconds, repetitions, machine, date,
//! commit), written next to the Markdown table into a folder named by the run, so that
//! `bench/report/report.R` can chart any run (issue 20).
//!
//! The folder: `--out DIR`, else `$VR_BENCH_OUT`, else `target/bench-runs/<date>-<commit>`.
//! The commit comes from `$VR_BENCH_COMMIT` (a copy without `.git`, such as the device
//! machine's) or `git rev-parse`; the machine from the CPU model and core count.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The times of one configuration's repetitions.
#[derive(Clone, Debug)]
pub struct Sample {
    pub times: Vec<Duration>,
}

impl Sample {
    pub fn median(&self) -> Duration {
        crate::timing::median(&mut self.times.clone())
    }
    pub fn min(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }
    pub fn max(&self) -> Duration {
        self.times.iter().copied().max().unwrap_or_default()
    }
    /// The same times multiplied by `factor` (the interpreter's, scaled by work).
    pub fn scaled(&self, factor: f64) -> Sample {
        Sample { times: self.times.iter().map(|t| t.mul_f64(factor)).collect() }
    }
}

/// Where this run is, and when.
pub struct RunInfo {
    pub dir: PathBuf,
    pub machine: String,
    pub date: String,
    pub commit: String,
}

impl RunInfo {
    pub fn new(out: Option<PathBuf>) -> RunInfo {
        let date = command_output("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"]).unwrap_or_else(|| "unknown".into());
        let commit = std::env::var("VR_BENCH_COMMIT")
            .ok()
            .filter(|c| !c.is_empty())
            .or_else(|| command_output("git", &["rev-parse", "--short", "HEAD"]))
            .unwrap_or_else(|| "unknown".into());
        let dir = out
            .or_else(|| std::env::var_os("VR_BENCH_OUT").map(PathBuf::from))
            .unwrap_or_else(|| {
                let stamp: String = date.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
                PathBuf::from("target/bench-runs").join(format!("{stamp}-{commit}"))
            });
        RunInfo { dir, machine: machine(), date, commit }
    }
}

/// A CSV file of one benchmark program's rows.
pub struct Recorder {
    rows: Vec<String>,
}

pub const HEADER: &str = "kernel,size,config,threads,median_s,min_s,max_s,reps,machine,date,commit";

impl Recorder {
    pub fn new() -> Recorder {
        Recorder { rows: Vec::new() }
    }

    pub fn push(&mut self, kernel: &str, size: usize, config: &str, threads: usize, s: &Sample) {
        self.rows.push(format!(
            "{kernel},{size},{config},{threads},{:.9},{:.9},{:.9},{}",
            s.median().as_secs_f64(),
            s.min().as_secs_f64(),
            s.max().as_secs_f64(),
            s.times.len()
        ));
    }

    /// Write `name` (e.g. `vr-bench.csv`) into the run's folder; the path written.
    pub fn write(&self, run: &RunInfo, name: &str) -> Result<PathBuf, String> {
        std::fs::create_dir_all(&run.dir).map_err(|e| format!("creating {}: {e}", run.dir.display()))?;
        let path = run.dir.join(name);
        let mut text = String::new();
        text.push_str(HEADER);
        text.push('\n');
        for r in &self.rows {
            let _ = writeln!(text, "{r},{},{},{}", csv_field(&run.machine), run.date, run.commit);
        }
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(path)
    }
}

/// A field quoted when it holds a comma or a quote.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn command_output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

/// "CPU model, N cores" from /proc/cpuinfo (the OS name where that file is missing).
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let model = std::fs::read_to_string(Path::new("/proc/cpuinfo"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, m)| m.trim().to_string()))
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    format!("{model}, {cores} cores")
}
