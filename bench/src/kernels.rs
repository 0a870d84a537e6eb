//! The benchmark kernels: their VRIR and C sources, deterministic inputs per size, how
//! much work a size means (to scale interpreter times), and how to call the C reference.

use libloading::{Library, Symbol};
use velociraptor::runtime::value::{Array, Buffer, Scalar, Value};
use velociraptor::vrir::types::{ArrayType, Layout, ScalarType};

/// One benchmark kernel. `func` is the VRIR function timed (and the C symbol of the
/// same name); its array parameters are inputs and outputs alike.
pub struct Kernel {
    pub name: &'static str,
    pub vrir: &'static str,
    pub c_source: &'static str,
    /// Problem size of the full run (compiled code and C take ~10-100 ms here).
    pub size: usize,
    /// Reduced size the interpreter is timed at; its time is scaled by `work`.
    pub interp_size: usize,
    /// Size for `--quick`.
    pub quick_size: usize,
    /// Work at a size, in arbitrary units proportional to the operations done.
    pub work: fn(usize) -> f64,
    /// Fresh arguments of `func` at a size.
    pub inputs: fn(usize) -> Vec<Value>,
    /// Calls the C reference on the same arguments (writing into their buffers) and
    /// returns its scalar results.
    pub call_c: fn(&Library, &[Value]) -> Result<Vec<Value>, String>,
}

macro_rules! sources {
    ($name:literal) => {
        (
            include_str!(concat!("../kernels/", $name, ".vrir")),
            include_str!(concat!("../c/", $name, ".c")),
        )
    };
}

pub fn all() -> Vec<Kernel> {
    vec![
        {
            let (vrir, c_source) = sources!("arc_distance");
            Kernel {
                name: "arc_distance",
                vrir,
                c_source,
                size: 400_000,
                interp_size: 4_000,
                quick_size: 100,
                work: |n| n as f64,
                inputs: |n| {
                    let mut r = Lcg::new(1);
                    let mut vec = || f64_array(&[n], |_| r.next() * 3.0 - 1.5);
                    vec![vec(), vec(), vec(), vec(), zeros(&[n])]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(
                        *const f64,
                        *const f64,
                        *const f64,
                        *const f64,
                        *mut f64,
                        i64,
                    );
                    let f: Symbol<F> = symbol(lib, "arc_distance")?;
                    unsafe {
                        f(
                            ptr(&a[0]),
                            ptr(&a[1]),
                            ptr(&a[2]),
                            ptr(&a[3]),
                            ptr(&a[4]),
                            dim(&a[4], 0),
                        )
                    };
                    Ok(vec![])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("julia_set");
            Kernel {
                name: "julia_set",
                vrir,
                c_source,
                size: 400,
                interp_size: 40,
                quick_size: 8,
                work: |n| (n * n) as f64,
                inputs: |n| {
                    let out =
                        Value::Array(Array::zeros(array_type(ScalarType::I64, 2), vec![n, n]));
                    vec![
                        f(-0.7),
                        f(0.27),
                        f(1.5),
                        f(1000.0),
                        Value::Scalar(Scalar::I64(300)),
                        out,
                    ]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(f64, f64, f64, f64, i64, *mut i64, i64);
                    let fun: Symbol<F> = symbol(lib, "julia_set")?;
                    unsafe {
                        fun(
                            sf(&a[0]),
                            sf(&a[1]),
                            sf(&a[2]),
                            sf(&a[3]),
                            si(&a[4]),
                            iptr(&a[5]),
                            dim(&a[5], 0),
                        )
                    };
                    Ok(vec![])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("growcut");
            Kernel {
                name: "growcut",
                vrir,
                c_source,
                size: 500,
                interp_size: 30,
                quick_size: 6,
                work: |n| (n * n) as f64,
                inputs: |n| {
                    let mut r = Lcg::new(2);
                    let image = f64_array(&[n, n, 3], |_| r.next());
                    // a few labelled seeds at full strength, the rest unlabelled
                    let state = f64_array(&[n, n, 2], |k| {
                        let cell = k / 2;
                        let seed = cell % 97 == 0;
                        match (seed, k % 2) {
                            (true, 0) => (1 + cell % 3) as f64,
                            (true, _) => 1.0,
                            _ => 0.0,
                        }
                    });
                    vec![
                        image,
                        state,
                        zeros(&[n, n, 2]),
                        Value::Scalar(Scalar::I64(1)),
                    ]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(
                        *const f64,
                        *const f64,
                        *mut f64,
                        i64,
                        i64,
                        i64,
                    ) -> i64;
                    let fun: Symbol<F> = symbol(lib, "growcut")?;
                    let changes = unsafe {
                        fun(
                            ptr(&a[0]),
                            ptr(&a[1]),
                            ptr(&a[2]),
                            si(&a[3]),
                            dim(&a[0], 0),
                            dim(&a[0], 1),
                        )
                    };
                    Ok(vec![Value::Scalar(Scalar::I64(changes))])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("rosen_der");
            Kernel {
                name: "rosen_der",
                vrir,
                c_source,
                size: 4_000_000,
                interp_size: 20_000,
                quick_size: 100,
                work: |n| n as f64,
                inputs: |n| {
                    let mut r = Lcg::new(3);
                    vec![f64_array(&[n], |_| r.next() * 2.0), zeros(&[n])]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(*const f64, *mut f64, i64);
                    let fun: Symbol<F> = symbol(lib, "rosen_der")?;
                    unsafe { fun(ptr(&a[0]), ptr(&a[1]), dim(&a[0], 0)) };
                    Ok(vec![])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("stencil5");
            Kernel {
                name: "stencil5",
                vrir,
                c_source,
                size: 2000,
                interp_size: 100,
                quick_size: 10,
                work: |n| (n * n) as f64,
                inputs: |n| {
                    let mut r = Lcg::new(4);
                    vec![f64_array(&[n, n], |_| r.next()), zeros(&[n, n])]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(*const f64, *mut f64, i64, i64);
                    let fun: Symbol<F> = symbol(lib, "stencil5")?;
                    unsafe { fun(ptr(&a[0]), ptr(&a[1]), dim(&a[0], 0), dim(&a[0], 1)) };
                    Ok(vec![])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("matmul_loops");
            Kernel {
                name: "matmul_loops",
                vrir,
                c_source,
                size: 300,
                interp_size: 30,
                quick_size: 6,
                work: |n| (n * n * n) as f64,
                inputs: |n| {
                    let mut r = Lcg::new(5);
                    let a = f64_array(&[n, n], |_| r.next() - 0.5);
                    let b = f64_array(&[n, n], |_| r.next() - 0.5);
                    vec![a, b, zeros(&[n, n])]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(*const f64, *const f64, *mut f64, i64, i64, i64);
                    let fun: Symbol<F> = symbol(lib, "matmul_loops")?;
                    unsafe {
                        fun(
                            ptr(&a[0]),
                            ptr(&a[1]),
                            ptr(&a[2]),
                            dim(&a[0], 0),
                            dim(&a[0], 1),
                            dim(&a[1], 1),
                        )
                    };
                    Ok(vec![])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("nbody1d");
            Kernel {
                name: "nbody1d",
                vrir,
                c_source,
                size: 3000,
                interp_size: 150,
                quick_size: 8,
                work: |n| (n * n) as f64,
                inputs: |n| {
                    let mut r = Lcg::new(6);
                    let x = f64_array(&[n], |_| r.next() * 100.0);
                    let v = f64_array(&[n], |_| r.next() - 0.5);
                    let m = f64_array(&[n], |_| r.next() + 0.5);
                    vec![x, v, m, zeros(&[n]), f(0.01), f(1e-3)]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(
                        *mut f64,
                        *mut f64,
                        *const f64,
                        *mut f64,
                        f64,
                        f64,
                        i64,
                    );
                    let fun: Symbol<F> = symbol(lib, "nbody1d")?;
                    unsafe {
                        fun(
                            ptr(&a[0]),
                            ptr(&a[1]),
                            ptr(&a[2]),
                            ptr(&a[3]),
                            sf(&a[4]),
                            sf(&a[5]),
                            dim(&a[0], 0),
                        )
                    };
                    Ok(vec![])
                },
            }
        },
        {
            let (vrir, c_source) = sources!("black_scholes");
            Kernel {
                name: "black_scholes",
                vrir,
                c_source,
                size: 1_000_000,
                interp_size: 5_000,
                quick_size: 100,
                work: |n| n as f64,
                inputs: |n| {
                    let mut r = Lcg::new(7);
                    let s = f64_array(&[n], |_| 5.0 + r.next() * 25.0);
                    let x = f64_array(&[n], |_| 1.0 + r.next() * 99.0);
                    let t = f64_array(&[n], |_| 0.25 + r.next() * 9.75);
                    vec![s, x, t, f(0.02), f(0.3), zeros(&[n]), zeros(&[n])]
                },
                call_c: |lib, a| {
                    type F = unsafe extern "C" fn(
                        *const f64,
                        *const f64,
                        *const f64,
                        f64,
                        f64,
                        *mut f64,
                        *mut f64,
                        i64,
                    );
                    let fun: Symbol<F> = symbol(lib, "black_scholes")?;
                    unsafe {
                        fun(
                            ptr(&a[0]),
                            ptr(&a[1]),
                            ptr(&a[2]),
                            sf(&a[3]),
                            sf(&a[4]),
                            ptr(&a[5]),
                            ptr(&a[6]),
                            dim(&a[0], 0),
                        )
                    };
                    Ok(vec![])
                },
            }
        },
    ]
}

/// Deep copies of `args`, so that a timed run never sees an earlier run's writes.
pub fn fresh_copy(args: &[Value]) -> Vec<Value> {
    args.iter()
        .map(|v| match v {
            Value::Array(a) => Value::Array(a.copy_as(a.ty.layout)),
            other => other.clone(),
        })
        .collect()
}

/// Every number a call leaves behind (array arguments, then results), as f64, in order.
pub fn observed(args: &[Value], results: &[Value]) -> Vec<f64> {
    let mut out = Vec::new();
    let arrays = args.iter().filter(|v| matches!(v, Value::Array(_)));
    for v in arrays.chain(results) {
        match v {
            Value::Array(a) => {
                out.extend(a.elements().iter().map(|s| s.as_f64().unwrap_or(f64::NAN)))
            }
            Value::Scalar(s) => out.push(s.as_f64().unwrap_or(f64::NAN)),
            _ => {}
        }
    }
    out
}

/// A small deterministic generator (64-bit LCG, Knuth's constants) of numbers in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn new(seed: u64) -> Lcg {
        Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn array_type(elem: ScalarType, ndims: u32) -> ArrayType {
    ArrayType {
        elem,
        ndims,
        layout: Layout::Row,
    }
}

/// A row-major f64 array whose element at linear position k is `gen(k)`.
pub fn f64_array(dims: &[usize], gen: impl FnMut(usize) -> f64) -> Value {
    let a = Array::zeros(
        array_type(ScalarType::F64, dims.len() as u32),
        dims.to_vec(),
    );
    let n: usize = dims.iter().product();
    *a.data.borrow_mut() = Buffer::F64((0..n).map(gen).collect());
    Value::Array(a)
}

fn zeros(dims: &[usize]) -> Value {
    f64_array(dims, |_| 0.0)
}

fn f(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

fn symbol<'l, T>(lib: &'l Library, name: &str) -> Result<Symbol<'l, T>, String> {
    unsafe { lib.get(name.as_bytes()) }.map_err(|e| format!("C symbol `{name}`: {e}"))
}

/// The data pointer of a contiguous f64 array built by `inputs` (which keeps every
/// array alive and unshared for the duration of the call).
fn ptr(v: &Value) -> *mut f64 {
    match v {
        Value::Array(a) => match &mut *a.data.borrow_mut() {
            Buffer::F64(b) => b.as_mut_ptr(),
            _ => std::ptr::null_mut(),
        },
        _ => std::ptr::null_mut(),
    }
}

fn iptr(v: &Value) -> *mut i64 {
    match v {
        Value::Array(a) => match &mut *a.data.borrow_mut() {
            Buffer::I64(b) => b.as_mut_ptr(),
            _ => std::ptr::null_mut(),
        },
        _ => std::ptr::null_mut(),
    }
}

fn dim(v: &Value, k: usize) -> i64 {
    match v {
        Value::Array(a) => a.dims[k] as i64,
        _ => 0,
    }
}

fn sf(v: &Value) -> f64 {
    match v {
        Value::Scalar(s) => s.as_f64().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn si(v: &Value) -> i64 {
    match v {
        Value::Scalar(s) => s.as_i64().unwrap_or(0),
        _ => 0,
    }
}
