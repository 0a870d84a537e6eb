//! Random R functions for the differential test against R itself
//! (core/tests/frontend_r_random_programs.rs). A program is made from a seed alone
//! (`program(seed)`), so any mismatch the test prints is reproduced by its seed.
//!
//! What the generator writes: scalars, vectors and matrices of logicals, integers and
//! doubles as arguments (with NA, NaN, Inf, -0 and integers near the overflow bound
//! among the values); locals of a fixed kind and shape; `for` over `seq_len`, `1:n`
//! and a vector's elements, `while` (bounded by a counter), `if`/`else`, `break`,
//! `next`, `stop`; arithmetic (`+ - * / ^ %% %/%`, integer overflow to NA), recycling
//! of vectors of any lengths, math functions, reductions (`sum prod mean max min`,
//! `cumsum`), indexing past the end (R's NA, R's growth, R's `subscript out of bounds`)
//! and element writes. Every local has one kind (logical, integer, double) and one
//! shape for the whole function, as R users write; the places where the R front end
//! deliberately gives another type than R (docs/frontend-r.md: a variable widened by
//! another assignment, `ifelse`) are not generated, since there a type difference is
//! the documented answer.
//!
//! What it avoids because R itself would run for hours or take gigabytes, not because
//! the compiled path might differ: every count (`seq_len`, `numeric`, loop bounds, slice
//! ends, write indices) is bounded by `max(min(., 6L), -1L)` or a literal, and `while` loops stop
//! after at most 6 rounds.
#![allow(dead_code)]

use serde_json::{json, Value as Json};

/// splitmix64: small, seedable, the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1A4_F87B)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Lgl,
    Int,
    Dbl,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    Scalar,
    Vector,
    Matrix,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    kind: Kind,
    shape: Shape,
    /// A loop variable or a `while` counter: read, never assigned by generated code.
    fixed: bool,
}

/// One generated function: its R text (`function(...) { ... }`, to be bound to a name)
/// and the JSON arguments of its one call (the form `r::compile_for_json` and
/// `rscript::r_literal` read).
#[derive(Clone, Debug)]
pub struct Program {
    pub seed: u64,
    pub function: String,
    pub args: Json,
}

impl Program {
    /// The source binding the function to `name`.
    pub fn source(&self, name: &str) -> String {
        format!("{name} <- {}\n", self.function)
    }
}

const DOUBLES: [f64; 14] = [
    0.0, 1.0, -1.0, 2.5, -0.5, 3.0, 0.1, 7.0, 1e-3, -2.25, 10.0, 0.3, 1e15, 100.0,
];
const INTS: [i32; 12] = [
    0,
    1,
    2,
    3,
    5,
    -2,
    -7,
    4,
    46341,
    65536,
    2_147_483_647,
    -2_147_483_647,
];

struct Gen {
    rng: Rng,
    vars: Vec<Var>,
    next_name: usize,
    /// Loop nesting depth (`break`/`next` only inside a loop).
    loops: usize,
    lines: Vec<String>,
}

fn dbl_json(rng: &mut Rng) -> Json {
    match rng.below(40) {
        0 => json!("nan"),
        1 => json!("inf"),
        2 => json!("-inf"),
        3 => json!(-0.0),
        4 => json!(1e300),
        _ => json!(*rng.pick(&DOUBLES)),
    }
}

fn int_value(rng: &mut Rng) -> i32 {
    match rng.below(30) {
        // NA_integer_ (r_literal writes i32::MIN as NA).
        0 => i32::MIN,
        _ => *rng.pick(&INTS),
    }
}

fn lit_dbl(rng: &mut Rng) -> String {
    let v = *rng.pick(&[
        0.0, 0.5, 1.0, 2.0, -1.0, 3.0, 0.1, 1.5, 10.0, -2.5, 0.25, 1e10,
    ]);
    let s = format!("{v:?}");
    if v < 0.0 {
        format!("({s})")
    } else {
        s
    }
}

fn lit_int(rng: &mut Rng) -> String {
    let v = *rng.pick(&[0, 1, 2, 3, 4, 7, -3, 100000, 2147483647]);
    if v < 0 {
        format!("({v}L)")
    } else {
        format!("{v}L")
    }
}

/// Whether to write `%%`/`%/%` of doubles and `^` of a possibly negative base: always,
/// since they agree with R (`^` is R_pow, frontend/r/arith.rs) or run in R (`%%`/`%/%`
/// with an operand that is not a whole number below 2^31); `VR_R_OPEN_BUGS=0` leaves
/// them out (the generator of commit 7b990e1 left them out until they were fixed).
fn open_bugs() -> bool {
    std::env::var("VR_R_OPEN_BUGS").map_or(true, |v| v != "0")
}

/// A binary operator of doubles: `^`'s base made non-negative (`abs`), and no `%%` or
/// `%/%` (`-` and `/` instead), unless `open_bugs()`.
fn double_binary(op: &str, a: String, b: String) -> String {
    match op {
        _ if open_bugs() => format!("({a} {op} {b})"),
        "^" => format!("(abs({a}) ^ {b})"),
        "%%" => format!("({a} - {b})"),
        "%/%" => format!("({a} / {b})"),
        _ => format!("({a} {op} {b})"),
    }
}

impl Gen {
    fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    fn vars_of(&self, kind: Kind, shape: Shape) -> Vec<String> {
        self.vars
            .iter()
            .filter(|v| v.kind == kind && v.shape == shape)
            .map(|v| v.name.clone())
            .collect()
    }

    fn var_of(&mut self, kind: Kind, shape: Shape) -> Option<String> {
        let vs = self.vars_of(kind, shape);
        if vs.is_empty() {
            None
        } else {
            Some(self.rng.pick(&vs).clone())
        }
    }

    fn assignable(&self) -> Vec<Var> {
        self.vars
            .iter()
            .filter(|v| !v.fixed && !v.name.starts_with('p'))
            .cloned()
            .collect()
    }

    /// A small count: from 0 to 6, rarely -1 (`1:-1` runs 3 times, `seq_len(-1)` is R's
    /// error), or NA (R's errors).
    fn size(&mut self) -> String {
        match self.rng.below(6) {
            0 | 1 => self.rng.below(5).to_string() + "L",
            2 => match self.var_of(Kind::Dbl, Shape::Vector) {
                Some(v) => format!("length({v})"),
                None => "3L".into(),
            },
            3 => match self.var_of(Kind::Dbl, Shape::Matrix) {
                Some(m) => format!("{}({m})", self.rng.pick(&["nrow", "ncol"])),
                None => "2L".into(),
            },
            4 if self.rng.chance(20) => {
                let k = self.int_scalar(1);
                format!("max(min({k}, 6L), -1L)")
            }
            _ => {
                let k = self.int_scalar(1);
                format!("max(min({k}, 6L), 0L)")
            }
        }
    }

    /// An index, small but possibly past the end, zero or negative.
    fn index(&mut self) -> String {
        match self.rng.below(5) {
            0 | 1 => (self.rng.below(5) + 1).to_string() + "L",
            2 => (self.rng.below(5) + 1).to_string(),
            _ => {
                let k = self.int_scalar(1);
                format!("min({k}, 6L)")
            }
        }
    }

    /// A matrix subscript: mostly within the 1 to 3 rows and columns arguments have,
    /// sometimes any `index()` (R's `subscript out of bounds`).
    fn matrix_index(&mut self) -> String {
        if self.rng.chance(80) {
            (self.rng.below(3) + 1).to_string() + "L"
        } else {
            self.index()
        }
    }

    fn dbl_scalar(&mut self, depth: usize) -> String {
        let leaf = depth == 0 || self.rng.chance(30);
        if leaf {
            return match self.rng.below(8) {
                0 | 1 => lit_dbl(&mut self.rng),
                2 | 3 => self
                    .var_of(Kind::Dbl, Shape::Scalar)
                    .unwrap_or_else(|| lit_dbl(&mut self.rng)),
                4 => self
                    .var_of(Kind::Int, Shape::Scalar)
                    // Made double: a local's kind is fixed, and `s <- k` made `s` an
                    // integer in R where compiled code joins it to double.
                    .map(|k| format!("as.double({k})"))
                    .unwrap_or_else(|| lit_dbl(&mut self.rng)),
                5 => match self.var_of(Kind::Dbl, Shape::Vector) {
                    Some(v) => {
                        let i = self.index();
                        if self.rng.chance(20) {
                            format!("{v}[[{i}]]")
                        } else {
                            format!("{v}[{i}]")
                        }
                    }
                    None => lit_dbl(&mut self.rng),
                },
                6 => match self.var_of(Kind::Dbl, Shape::Matrix) {
                    Some(m) => {
                        let (i, j) = (self.matrix_index(), self.matrix_index());
                        format!("{m}[{i}, {j}]")
                    }
                    None => lit_dbl(&mut self.rng),
                },
                _ => match self.var_of(Kind::Dbl, Shape::Vector) {
                    Some(v) => format!(
                        "{}({v})",
                        self.rng
                            .pick(&["sum", "prod", "mean", "max", "min", "sum"])
                    ),
                    None => lit_dbl(&mut self.rng),
                },
            };
        }
        let d = depth - 1;
        match self.rng.below(10) {
            0..=3 => {
                let op = *self
                    .rng
                    .pick(&["+", "-", "*", "/", "^", "%%", "%/%", "+", "*", "-"]);
                let a = self.dbl_scalar(d);
                let b = if self.rng.chance(30) {
                    self.int_scalar(d)
                } else {
                    self.dbl_scalar(d)
                };
                if self.rng.chance(50) {
                    double_binary(op, a, b)
                } else {
                    double_binary(op, b, a)
                }
            }
            4 | 5 => {
                let f = *self.rng.pick(&[
                    "sqrt", "exp", "log", "sin", "cos", "tan", "atan", "tanh", "abs", "floor",
                    "ceiling", "round", "trunc", "log10", "sinh", "cosh", "asin", "acos",
                ]);
                format!("{f}({})", self.dbl_scalar(d))
            }
            6 => format!("(-{})", self.dbl_scalar(d)),
            7 => {
                let f = *self.rng.pick(&["max", "min", "atan2"]);
                format!("{f}({}, {})", self.dbl_scalar(d), self.dbl_scalar(d))
            }
            8 => {
                let (c, a, b) = (self.lgl_scalar(d), self.dbl_scalar(d), self.dbl_scalar(d));
                format!("(if ({c}) {a} else {b})")
            }
            _ => format!("as.double({})", self.int_scalar(d)),
        }
    }

    fn int_scalar(&mut self, depth: usize) -> String {
        let leaf = depth == 0 || self.rng.chance(35);
        if leaf {
            return match self.rng.below(7) {
                0 | 1 => lit_int(&mut self.rng),
                2..=4 => self
                    .var_of(Kind::Int, Shape::Scalar)
                    .unwrap_or_else(|| lit_int(&mut self.rng)),
                5 => match self.var_of(Kind::Int, Shape::Vector) {
                    Some(w) => {
                        let i = self.index();
                        format!("{w}[{i}]")
                    }
                    None => lit_int(&mut self.rng),
                },
                _ => match self.var_of(Kind::Int, Shape::Vector) {
                    Some(w) => format!("{}({w})", self.rng.pick(&["sum", "max", "min", "length"])),
                    None => match self.var_of(Kind::Dbl, Shape::Vector) {
                        Some(v) => format!("length({v})"),
                        None => lit_int(&mut self.rng),
                    },
                },
            };
        }
        let d = depth - 1;
        match self.rng.below(8) {
            0..=3 => {
                let op = *self.rng.pick(&["+", "-", "*", "%%", "%/%", "+", "*"]);
                format!("({} {op} {})", self.int_scalar(d), self.int_scalar(d))
            }
            4 => format!("(-{})", self.int_scalar(d)),
            5 => format!("abs({})", self.int_scalar(d)),
            6 => format!("as.integer({})", self.dbl_scalar(d)),
            _ => match self.var_of(Kind::Lgl, Shape::Vector) {
                Some(l) => format!("sum({l})"),
                None => format!("length({})", self.int_vector(d)),
            },
        }
    }

    fn lgl_scalar(&mut self, depth: usize) -> String {
        let leaf = depth == 0 || self.rng.chance(20);
        if leaf {
            if let Some(l) = self.var_of(Kind::Lgl, Shape::Scalar) {
                if self.rng.chance(40) {
                    return l;
                }
            }
            return self.rng.pick(&["TRUE", "FALSE"]).to_string();
        }
        let d = depth - 1;
        let cmp = *self.rng.pick(&["<", ">", "<=", ">=", "==", "!="]);
        match self.rng.below(9) {
            0..=2 => format!("({} {cmp} {})", self.dbl_scalar(d), self.dbl_scalar(d)),
            3 | 4 => format!("({} {cmp} {})", self.int_scalar(d), self.int_scalar(d)),
            5 => format!("!{}", self.lgl_scalar(d)),
            6 => {
                let op = *self.rng.pick(&["&&", "||"]);
                format!("({} {op} {})", self.lgl_scalar(d), self.lgl_scalar(d))
            }
            7 => format!("is.na({})", self.dbl_scalar(d)),
            _ => {
                let f = *self.rng.pick(&["any", "all"]);
                format!("{f}({} {cmp} {})", self.dbl_vector(d), self.dbl_scalar(d))
            }
        }
    }

    fn dbl_vector(&mut self, depth: usize) -> String {
        let leaf = depth == 0 || self.rng.chance(30);
        if leaf {
            return match self.rng.below(6) {
                0..=2 => self.var_of(Kind::Dbl, Shape::Vector).unwrap_or_else(|| {
                    format!("c({}, {})", lit_dbl(&mut self.rng), lit_dbl(&mut self.rng))
                }),
                3 => format!("numeric({})", self.size()),
                4 => format!("(seq_len({}) * {})", self.size(), lit_dbl(&mut self.rng)),
                _ => format!("c({}, {})", self.dbl_scalar(1), self.dbl_scalar(1)),
            };
        }
        let d = depth - 1;
        match self.rng.below(12) {
            0..=2 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "^", "%%", "%/%"]);
                let a = self.dbl_vector(d);
                let b = match self.rng.below(3) {
                    0 => self.dbl_vector(d),
                    1 => self.int_vector(d),
                    _ => self.dbl_scalar(d),
                };
                if self.rng.chance(50) {
                    double_binary(op, a, b)
                } else {
                    double_binary(op, b, a)
                }
            }
            3 => {
                let f = *self.rng.pick(&[
                    "sqrt", "exp", "log", "sin", "abs", "floor", "round", "cos", "trunc",
                ]);
                format!("{f}({})", self.dbl_vector(d))
            }
            4 => format!(
                "{}({})",
                self.rng.pick(&["cumsum", "rev", "cumprod"]),
                self.dbl_vector(d)
            ),
            5 => format!("c({}, {})", self.dbl_vector(d), self.dbl_scalar(d)),
            6 => format!(
                "{}({}, {})",
                self.rng.pick(&["pmax", "pmin"]),
                self.dbl_vector(d),
                self.dbl_scalar(d)
            ),
            7 => format!("as.double({})", self.int_vector(d)),
            8 => match self.var_of(Kind::Dbl, Shape::Matrix) {
                Some(m) => match self.rng.below(4) {
                    0 => format!(
                        "{}({m})",
                        self.rng
                            .pick(&["colSums", "rowSums", "colMeans", "rowMeans"])
                    ),
                    1 => format!("{m}[{}, ]", self.matrix_index()),
                    2 => format!("{m}[, {}]", self.matrix_index()),
                    _ => format!("as.vector({m})"),
                },
                None => self.dbl_vector(d),
            },
            9 => match self.var_of(Kind::Dbl, Shape::Vector) {
                Some(v) => format!("{v}[{}:{}]", self.index(), self.index()),
                None => self.dbl_vector(d),
            },
            10 => format!("(-{})", self.dbl_vector(d)),
            _ => match self.var_of(Kind::Dbl, Shape::Vector) {
                Some(v) => format!("{v}[-{}]", self.rng.below(4) + 1),
                None => self.dbl_vector(d),
            },
        }
    }

    fn int_vector(&mut self, depth: usize) -> String {
        let leaf = depth == 0 || self.rng.chance(35);
        if leaf {
            return match self.rng.below(5) {
                0 | 1 => self
                    .var_of(Kind::Int, Shape::Vector)
                    .unwrap_or_else(|| format!("seq_len({})", self.size())),
                2 => format!("seq_len({})", self.size()),
                3 => format!("(1:{})", self.size()),
                _ => format!("c({}, {})", self.int_scalar(1), self.int_scalar(1)),
            };
        }
        let d = depth - 1;
        match self.rng.below(6) {
            0..=2 => {
                let op = *self.rng.pick(&["+", "-", "*", "%%", "%/%"]);
                let a = self.int_vector(d);
                let b = if self.rng.chance(50) {
                    self.int_vector(d)
                } else {
                    self.int_scalar(d)
                };
                format!("({a} {op} {b})")
            }
            3 => format!(
                "{}({})",
                self.rng.pick(&["cumsum", "rev", "abs"]),
                self.int_vector(d)
            ),
            4 => format!("c({}, {})", self.int_vector(d), self.int_scalar(d)),
            _ => format!("as.integer({})", self.dbl_vector(d)),
        }
    }

    fn lgl_vector(&mut self, depth: usize) -> String {
        let cmp = *self.rng.pick(&["<", ">", "<=", ">=", "==", "!="]);
        match self.rng.below(3) {
            0 => format!(
                "({} {cmp} {})",
                self.dbl_vector(depth),
                self.dbl_scalar(depth)
            ),
            1 => format!(
                "({} {cmp} {})",
                self.int_vector(depth),
                self.int_scalar(depth)
            ),
            _ => format!("is.na({})", self.dbl_vector(depth)),
        }
    }

    fn dbl_matrix(&mut self, depth: usize) -> String {
        let m = match self.var_of(Kind::Dbl, Shape::Matrix) {
            Some(m) => m,
            None => {
                return format!(
                    "matrix({}, {}, {})",
                    lit_dbl(&mut self.rng),
                    self.size(),
                    self.size()
                )
            }
        };
        if depth == 0 || self.rng.chance(30) {
            return m;
        }
        let d = depth - 1;
        match self.rng.below(6) {
            0 | 1 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "^", "%%"]);
                let s = self.dbl_scalar(d);
                double_binary(op, m, s)
            }
            2 => format!("({m} + {})", self.dbl_matrix(d)),
            3 => format!("{}({m})", self.rng.pick(&["sqrt", "abs", "exp", "floor"])),
            4 => format!("t({})", self.dbl_matrix(d)),
            _ => format!(
                "matrix({}, {}, {})",
                lit_dbl(&mut self.rng),
                self.size(),
                self.size()
            ),
        }
    }

    fn expr(&mut self, kind: Kind, shape: Shape, depth: usize) -> String {
        match (kind, shape) {
            (Kind::Dbl, Shape::Scalar) => self.dbl_scalar(depth),
            (Kind::Int, Shape::Scalar) => self.int_scalar(depth),
            (Kind::Lgl, Shape::Scalar) => self.lgl_scalar(depth),
            (Kind::Dbl, Shape::Vector) => self.dbl_vector(depth),
            (Kind::Int, Shape::Vector) => self.int_vector(depth),
            (Kind::Lgl, Shape::Vector) => self.lgl_vector(depth),
            (_, Shape::Matrix) => self.dbl_matrix(depth),
        }
    }

    fn line(&mut self, indent: usize, text: String) {
        self.lines.push(format!("{}{text}", "  ".repeat(indent)));
    }

    fn statements(&mut self, indent: usize, count: usize) {
        for _ in 0..count {
            self.statement(indent);
        }
    }

    fn statement(&mut self, indent: usize) {
        let nested = indent < 3;
        match self.rng.below(14) {
            0..=3 => {
                let targets = self.assignable();
                if targets.is_empty() {
                    return;
                }
                let t = self.rng.pick(&targets).clone();
                let e = if t.kind != Kind::Lgl && t.shape == Shape::Scalar && self.rng.chance(50) {
                    // An accumulation, the commonest loop statement.
                    let op = *self.rng.pick(&["+", "-", "*"]);
                    format!("{} {op} {}", t.name, self.expr(t.kind, t.shape, 2))
                } else {
                    self.expr(t.kind, t.shape, 3)
                };
                self.line(indent, format!("{} <- {e}", t.name));
            }
            4 if nested => {
                let i = self.fresh("i");
                let seq = match self.rng.below(3) {
                    0 => format!("seq_len({})", self.size()),
                    1 => format!("1:{}", self.size()),
                    _ => format!("seq_along({})", self.dbl_vector(1)),
                };
                self.line(indent, format!("for ({i} in {seq}) {{"));
                self.loop_body(
                    indent,
                    Var {
                        name: i,
                        kind: Kind::Int,
                        shape: Shape::Scalar,
                        fixed: true,
                    },
                );
            }
            5 if nested => {
                let e = self.fresh("e");
                let over = self.dbl_vector(1);
                self.line(indent, format!("for ({e} in {over}) {{"));
                self.loop_body(
                    indent,
                    Var {
                        name: e,
                        kind: Kind::Dbl,
                        shape: Shape::Scalar,
                        fixed: true,
                    },
                );
            }
            6 if nested => {
                let c = self.fresh("c");
                let bound = self.rng.below(6) + 1;
                self.line(indent, format!("{c} <- 0L"));
                let extra = if self.rng.chance(50) {
                    format!(" && {}", self.lgl_scalar(2))
                } else {
                    String::new()
                };
                self.line(indent, format!("while ({c} < {bound}L{extra}) {{"));
                self.line(indent + 1, format!("{c} <- {c} + 1L"));
                self.loop_body(
                    indent,
                    Var {
                        name: c,
                        kind: Kind::Int,
                        shape: Shape::Scalar,
                        fixed: true,
                    },
                );
            }
            7 | 8 if nested => {
                let c = self.lgl_scalar(2);
                self.line(indent, format!("if ({c}) {{"));
                let n = self.rng.below(3) + 1;
                self.statements(indent + 1, n);
                if self.rng.chance(50) {
                    self.line(indent, "} else {".into());
                    let n = self.rng.below(3) + 1;
                    self.statements(indent + 1, n);
                }
                self.line(indent, "}".into());
            }
            9 | 10 => {
                // An element write: past the end R grows the vector.
                let targets: Vec<Var> = self
                    .assignable()
                    .into_iter()
                    .filter(|v| v.shape != Shape::Scalar && v.kind != Kind::Lgl)
                    .collect();
                if targets.is_empty() {
                    return;
                }
                let t = self.rng.pick(&targets).clone();
                let value = match t.kind {
                    Kind::Int => self.int_scalar(2),
                    _ => self.dbl_scalar(2),
                };
                let at = if t.shape == Shape::Matrix {
                    format!("{}, {}", self.matrix_index(), self.matrix_index())
                } else {
                    self.index()
                };
                self.line(indent, format!("{}[{at}] <- {value}", t.name));
            }
            11 if self.loops > 0 => {
                let c = self.lgl_scalar(2);
                let what = *self.rng.pick(&["break", "next"]);
                self.line(indent, format!("if ({c}) {what}"));
            }
            12 if self.rng.chance(40) => {
                let c = self.lgl_scalar(3);
                self.line(indent, format!("if ({c}) stop(\"generated stop\")"));
            }
            _ => {
                // Growth by `c()`.
                let targets: Vec<Var> = self
                    .assignable()
                    .into_iter()
                    .filter(|v| v.shape == Shape::Vector && v.kind == Kind::Dbl)
                    .collect();
                if let Some(t) = targets.first().cloned() {
                    let s = self.dbl_scalar(2);
                    self.line(indent, format!("{} <- c({}, {s})", t.name, t.name));
                }
            }
        }
    }

    fn loop_body(&mut self, indent: usize, var: Var) {
        self.vars.push(var);
        self.loops += 1;
        let n = self.rng.below(3) + 1;
        self.statements(indent + 1, n);
        self.loops -= 1;
        self.vars.pop();
        self.line(indent, "}".into());
    }
}

/// The program of one seed.
pub fn program(seed: u64) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        vars: Vec::new(),
        next_name: 0,
        loops: 0,
        lines: Vec::new(),
    };
    // Arguments.
    let mut params = Vec::new();
    let mut args = Vec::new();
    let nargs = g.rng.below(4) + 1;
    for k in 1..=nargs {
        let name = format!("p{k}");
        let (kind, shape, value) = match g.rng.below(8) {
            0 | 1 => (Kind::Dbl, Shape::Scalar, dbl_json(&mut g.rng)),
            2 => (
                Kind::Int,
                Shape::Scalar,
                json!({"dtype": "i32", "data": int_value(&mut g.rng)}),
            ),
            3 | 4 => {
                let n = g.rng.below(6);
                let data: Vec<Json> = (0..n).map(|_| dbl_json(&mut g.rng)).collect();
                (
                    Kind::Dbl,
                    Shape::Vector,
                    json!({"dtype": "f64", "shape": [n], "data": data}),
                )
            }
            5 => {
                let n = g.rng.below(5);
                let data: Vec<i32> = (0..n).map(|_| int_value(&mut g.rng)).collect();
                (
                    Kind::Int,
                    Shape::Vector,
                    json!({"dtype": "i32", "shape": [n], "data": data}),
                )
            }
            6 => {
                let (r, c) = (g.rng.below(3) + 1, g.rng.below(3) + 1);
                let data: Vec<Json> = (0..r)
                    .map(|_| Json::Array((0..c).map(|_| dbl_json(&mut g.rng)).collect()))
                    .collect();
                (
                    Kind::Dbl,
                    Shape::Matrix,
                    json!({"dtype": "f64", "shape": [r, c], "data": data}),
                )
            }
            _ => (Kind::Lgl, Shape::Scalar, json!(g.rng.chance(50))),
        };
        params.push(name.clone());
        args.push(value);
        g.vars.push(Var {
            name,
            kind,
            shape,
            fixed: false,
        });
    }
    // Locals, each of one kind and shape, initialised at the top.
    let nlocals = g.rng.below(4) + 1;
    for _ in 0..nlocals {
        let (kind, shape, prefix) = *g.rng.pick(&[
            (Kind::Dbl, Shape::Scalar, "s"),
            (Kind::Dbl, Shape::Scalar, "s"),
            (Kind::Int, Shape::Scalar, "k"),
            (Kind::Dbl, Shape::Vector, "v"),
            (Kind::Dbl, Shape::Vector, "v"),
            (Kind::Int, Shape::Vector, "w"),
            (Kind::Dbl, Shape::Matrix, "m"),
            (Kind::Lgl, Shape::Scalar, "b"),
        ]);
        let init = g.expr(kind, shape, 2);
        let name = g.fresh(prefix);
        g.line(1, format!("{name} <- {init}"));
        g.vars.push(Var {
            name,
            kind,
            shape,
            fixed: false,
        });
    }
    let nstmts = g.rng.below(5) + 1;
    g.statements(1, nstmts);
    // The result: a local (most often) or an expression.
    let locals = g.assignable();
    let result = if !locals.is_empty() && g.rng.chance(75) {
        g.rng.pick(&locals).name.clone()
    } else {
        let (kind, shape) = *g.rng.pick(&[
            (Kind::Dbl, Shape::Scalar),
            (Kind::Int, Shape::Scalar),
            (Kind::Dbl, Shape::Vector),
            (Kind::Int, Shape::Vector),
            (Kind::Lgl, Shape::Scalar),
        ]);
        g.expr(kind, shape, 2)
    };
    g.line(1, result);
    let function = format!(
        "function({}) {{\n{}\n}}",
        params.join(", "),
        g.lines.join("\n")
    );
    Program {
        seed,
        function,
        args: Json::Array(args),
    }
}
