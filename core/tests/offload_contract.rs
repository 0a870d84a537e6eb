//! The offload contract (`runtime::offload`) from the compiled side, with engines written
//! here (no OpenCL): actions are called where the plan says, with the variables it names;
//! a declined task runs its compiled CPU code; a task the engine runs replaces it; an
//! engine's error reaches the caller with its fields. Expected values are hand-computed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use velociraptor::backend;
use velociraptor::cpu::{compile_offloaded, CpuOptions};
use velociraptor::runtime::error::VrError;
use velociraptor::runtime::offload::{
    Action, ActionEnv, FunctionPlan, Offload, OffloadEngine, OffloadPlan, OffloadSession, Outcome,
    StmtPlan,
};
use velociraptor::runtime::value::{Scalar, Value};
use velociraptor::vrir::types::{Layout, ScalarType, Type};

/// A parfor doubling x (statement 0 of the body is the parfor; 1 is its body block's
/// store; 2 the return).
const SRC: &str = r#"
(module m :index-base 0
  (function f ((x f64[1,row]) (n i64)) (f64[1,row])
    (locals (i i64))
    (parfor (i) (range 0 (- n 1))
      (block (set (index x i) (* 2.0 (index x i)))))
    (return x)))
"#;

/// What the engine saw at the task: n, x's extents, the domain's stop.
type Sight = (Option<Scalar>, Option<Vec<i64>>, Scalar);
type Seen = Arc<Mutex<Vec<Sight>>>;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Decline,
    /// Run the task here: x[k] = -1 for every k.
    Run,
    Fail,
}

struct Engine {
    mode: Mode,
    calls: Arc<AtomicU32>,
    seen: Seen,
}

struct Session {
    mode: Mode,
    calls: Arc<AtomicU32>,
    seen: Seen,
}

impl OffloadEngine for Engine {
    fn session(&self) -> Box<dyn OffloadSession> {
        Box::new(Session {
            mode: self.mode,
            calls: self.calls.clone(),
            seen: self.seen.clone(),
        })
    }
}

impl OffloadSession for Session {
    fn act(&mut self, action: u32, env: &mut dyn ActionEnv) -> Outcome {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if action != 7 {
            return Outcome::Done;
        }
        // vars: n (scalar), x (array); values: the domain's stop.
        self.seen
            .lock()
            .unwrap()
            .push((env.scalar(0), env.array(1).map(|a| a.dims), env.value(0)));
        match self.mode {
            Mode::Decline => Outcome::Declined,
            Mode::Fail => Outcome::Failed(VrError::runtime("engine says no").with_function("f")),
            Mode::Run => {
                let a = env.array(1).unwrap();
                for k in 0..a.dims[0] {
                    // SAFETY: k is within the array handed in.
                    unsafe { *(a.data as *mut f64).add((k * a.strides[0]) as usize) = -1.0 };
                }
                Outcome::Done
            }
        }
    }
}

fn run(mode: Mode) -> (Result<Vec<Value>, VrError>, u32, Vec<Sight>) {
    let m = backend::load(SRC).unwrap();
    let mut stmts = HashMap::new();
    let x_ty = Type::array(ScalarType::F64, 1, Layout::Row);
    stmts.insert(
        0,
        StmtPlan {
            task: Some(Action {
                id: 7,
                vars: vec![
                    ("n".into(), Type::scalar(ScalarType::I64)),
                    ("x".into(), x_ty.clone()),
                ],
                values: vec![(
                    velociraptor::vrir::ast::Expr::binary(
                        velociraptor::vrir::ast::BinOp::Sub,
                        velociraptor::vrir::ast::Expr::var("n"),
                        velociraptor::vrir::ast::Expr::i64(1),
                    ),
                    ScalarType::I64,
                )],
            }),
            ..Default::default()
        },
    );
    // A synchronisation before the return.
    stmts.insert(
        2,
        StmtPlan {
            before: Some(Action {
                id: 8,
                vars: vec![("x".into(), x_ty)],
                values: vec![],
            }),
            ..Default::default()
        },
    );
    let mut plan = OffloadPlan::default();
    plan.functions.insert("f".into(), FunctionPlan { stmts });
    let calls = Arc::new(AtomicU32::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let engine = Arc::new(Engine {
        mode,
        calls: calls.clone(),
        seen: seen.clone(),
    });
    let compiled = compile_offloaded(
        &m,
        CpuOptions::parallel(),
        Offload {
            plan: Arc::new(plan),
            engine,
        },
    )
    .unwrap();
    let f = backend::lookup(&m, "f").unwrap();
    let args = backend::args_from_json(f, &serde_json::json!([[1.0, 2.0, 3.0], 3])).unwrap();
    let r = compiled.call("f", args);
    let seen = seen.lock().unwrap().clone();
    (r, calls.load(Ordering::Relaxed), seen)
}

fn data(r: &[Value]) -> serde_json::Value {
    r[0].to_json()["data"].clone()
}

#[test]
fn a_declined_task_runs_its_cpu_code() {
    let (r, calls, seen) = run(Mode::Decline);
    assert_eq!(data(&r.unwrap()), serde_json::json!([2.0, 4.0, 6.0]));
    assert_eq!(calls, 2, "the task and the sync before the return");
    // The engine saw n, x's extents and the domain's stop as compiled code evaluated it.
    assert_eq!(
        seen,
        vec![(Some(Scalar::I64(3)), Some(vec![3]), Scalar::I64(2))]
    );
}

#[test]
fn a_task_the_engine_runs_replaces_the_cpu_code() {
    let (r, _, _) = run(Mode::Run);
    assert_eq!(data(&r.unwrap()), serde_json::json!([-1.0, -1.0, -1.0]));
}

#[test]
fn an_engines_error_reaches_the_caller() {
    let (r, calls, _) = run(Mode::Fail);
    let e = r.unwrap_err();
    assert_eq!(e.message, "engine says no");
    assert_eq!(e.function.as_deref(), Some("f"));
    assert_eq!(calls, 1, "nothing runs after the failed task");
}
