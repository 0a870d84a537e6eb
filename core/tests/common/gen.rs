//! Random well-typed VRIR modules for property and differential testing.
//!
//! Programs are built from a "choice tape" (a vector of numbers proptest generates and
//! shrinks): every decision reads the next number, and an exhausted tape always takes
//! choice 0, which is the simplest option. Shrinking the tape therefore shrinks the
//! program, Hypothesis-style, without a hand-written shrinker.
//!
//! Every generated program is well typed (it must pass the verifier) and, by
//! construction, runs without error on any arguments from [`arguments`]:
//! - arrays are grouped into *shape classes*: every array of one class has the dims of
//!   the parameters of that class, so element-wise operations always conform;
//! - array elements are read and written only with the variables of a loop over the
//!   extents of that class, so every index is in bounds;
//! - slices, gathers and masks (read, reduced, or written with a scalar or an array) are
//!   in bounds by construction: ranges with absent endpoints (`:`, `_:_:-1`,
//!   `base:_:2`) or anchored at a loop variable of the array's class, gathers
//!   `(+ (mod G (dim x k)) base)` where a loop over x's class guarantees `dim x k > 0`
//!   or G has x's (1-D) class, masks computed from an array of x's (1-D) class; an array
//!   stored through a selection is of x's class and the selection keeps x's shape;
//! - integer division and modulo divide by non-zero literals; no float-to-integer cast;
//! - loops are bounded (`for` over extents or small ranges, `while` with a counter the
//!   body cannot touch); functions only call functions defined before them;
//! - `parfor` bodies only write elements of their own iteration (`out[i] = f(i)`), may
//!   set a loop-private scalar first thing in every iteration, and read nothing else
//!   that could be written, so any iteration order gives the same result (the cpu-par
//!   backend runs them on several threads).
//!
//! Types: bool, i64, f64 and c128 scalars (c64 through casts), arrays of i64, f64 and
//! c128; a function with two results may return them as one tuple, read by callers
//! with `tget` or through a tuple local and `mset`. Complex expressions exercise the
//! arithmetic, the transcendental functions, `pow`, `complex`, casts and reductions.
//!
//! A later backend reuses this for differential testing: run `g.module` with
//! `arguments(&g, ...)` on the interpreter and on the backend, and compare.

#![allow(dead_code)]

use proptest::prelude::*;
use velociraptor::runtime::value::{Array, Scalar, Value};
use velociraptor::vrir::*;

/// How big generated programs get.
#[derive(Clone, Copy, Debug)]
pub struct GenConfig {
    pub max_functions: u32,
    pub max_params: u32,
    /// Statement nesting depth (blocks inside ifs and loops).
    pub max_stmt_depth: u32,
    pub max_expr_depth: u32,
    /// Statements per function, all blocks together.
    pub max_stmts: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_functions: 4,
            max_params: 4,
            max_stmt_depth: 3,
            max_expr_depth: 3,
            max_stmts: 24,
        }
    }
}

/// The types the generator works with. Arrays carry their shape class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GTy {
    Bool,
    I64,
    F64,
    C128,
    Arr(ArrTy),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrTy {
    /// `I64`, `F64` or `C128`.
    pub elem: ScalarType,
    pub ndims: u32,
    pub layout: Layout,
    /// Arrays of one class (within one function) always have equal dims.
    pub class: usize,
}

impl GTy {
    pub fn to_type(self) -> Type {
        match self {
            GTy::Bool => Type::BOOL,
            GTy::I64 => Type::I64,
            GTy::F64 => Type::F64,
            GTy::C128 => Type::C128,
            GTy::Arr(a) => Type::array(a.elem, a.ndims, a.layout),
        }
    }
    fn scalar(elem: ScalarType) -> GTy {
        match elem {
            ScalarType::Bool => GTy::Bool,
            ScalarType::I64 => GTy::I64,
            ScalarType::C128 => GTy::C128,
            _ => GTy::F64,
        }
    }
    /// The element type of a scalar `GTy` (None for arrays).
    fn elem(self) -> Option<ScalarType> {
        match self {
            GTy::Bool => Some(ScalarType::Bool),
            GTy::I64 => Some(ScalarType::I64),
            GTy::F64 => Some(ScalarType::F64),
            GTy::C128 => Some(ScalarType::C128),
            GTy::Arr(_) => None,
        }
    }
}

/// A generated function's signature with its shape classes (numbered per function).
#[derive(Clone, Debug)]
pub struct Sig {
    pub name: String,
    pub params: Vec<GTy>,
    pub results: Vec<GTy>,
    /// Rank of each shape class.
    pub class_ranks: Vec<u32>,
    /// Writes no array element and calls nothing that might (safe inside parfor).
    pub pure_scalar: bool,
    /// The (two) results are returned as one `tuple`-typed result.
    pub tuple_result: bool,
}

impl Sig {
    /// The declared result types: `results`, or one tuple of them.
    pub fn result_types(&self) -> Vec<Type> {
        let items: Vec<Type> = self.results.iter().map(|t| t.to_type()).collect();
        if self.tuple_result {
            vec![Type::Tuple { items }]
        } else {
            items
        }
    }
}

/// A generated module and what is needed to call its functions.
#[derive(Clone, Debug)]
pub struct Generated {
    pub module: Module,
    pub sigs: Vec<Sig>,
}

impl Generated {
    /// The last function: it may call all the others.
    pub fn entry(&self) -> &Sig {
        self.sigs.last().expect("at least one function")
    }
}

/// A proptest strategy for random well-typed modules.
pub fn module_strategy(cfg: GenConfig) -> impl Strategy<Value = Generated> {
    prop::collection::vec(any::<u32>(), 0..3000).prop_map(move |tape| generate(&tape, cfg))
}

/// A generated module together with arguments for its entry function.
pub fn module_and_args_strategy(cfg: GenConfig) -> impl Strategy<Value = (Generated, Vec<Value>)> {
    (
        module_strategy(cfg),
        prop::collection::vec(any::<u32>(), 0..200),
    )
        .prop_map(|(g, tape)| {
            let args = arguments(g.entry(), &tape);
            (g, args)
        })
}

/// Reads decisions off the tape; past its end every decision is 0.
struct Tape<'t> {
    tape: &'t [u32],
    pos: usize,
}

impl Tape<'_> {
    /// A number in 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        let v = self.tape.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v as usize % n.max(1)
    }
    /// True with probability about 1/n (never once the tape is exhausted).
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == n - 1
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Build a module from a tape.
pub fn generate(tape: &[u32], cfg: GenConfig) -> Generated {
    let mut t = Tape { tape, pos: 0 };
    let index_base = t.below(2) as u8;
    let n_functions = 1 + t.below(cfg.max_functions as usize);
    let mut sigs: Vec<Sig> = Vec::new();
    let mut functions = Vec::new();
    for k in 0..n_functions {
        let sig = signature(&mut t, &cfg, format!("f{k}"));
        let mut fg = FnGen::new(&mut t, cfg, index_base, &sigs, &sig);
        let function = fg.function();
        let pure_scalar = fg.pure_scalar;
        sigs.push(Sig { pure_scalar, ..sig });
        functions.push(function);
    }
    Generated {
        module: Module {
            name: "gen".into(),
            index_base,
            functions,
        },
        sigs,
    }
}

fn signature(t: &mut Tape, cfg: &GenConfig, name: String) -> Sig {
    let mut class_ranks: Vec<u32> = Vec::new();
    let mut params = Vec::new();
    for _ in 0..t.below(cfg.max_params as usize + 1) {
        params.push(match t.below(7) {
            0 => GTy::F64,
            1 => GTy::I64,
            2 => GTy::Bool,
            6 => GTy::C128,
            _ => {
                // An array: a new shape class, or one we have of the same rank.
                let ndims = 1 + t.below(2) as u32;
                let same_rank: Vec<usize> = (0..class_ranks.len())
                    .filter(|&c| class_ranks[c] == ndims)
                    .collect();
                let class = if !same_rank.is_empty() && t.below(2) == 1 {
                    *t.pick(&same_rank)
                } else {
                    class_ranks.push(ndims);
                    class_ranks.len() - 1
                };
                GTy::Arr(array_ty(t, ndims, class))
            }
        });
    }
    let mut results = Vec::new();
    let n_results = match t.below(6) {
        0 => 0,
        5 => 2,
        _ => 1,
    };
    for _ in 0..n_results {
        results.push(match t.below(5) {
            3 if !class_ranks.is_empty() => {
                let class = t.below(class_ranks.len());
                GTy::Arr(array_ty(t, class_ranks[class], class))
            }
            0 | 3 => GTy::F64,
            1 => GTy::I64,
            4 => GTy::C128,
            _ => GTy::Bool,
        });
    }
    // Two results: now and then returned as one tuple.
    let tuple_result = n_results == 2 && t.below(2) == 1;
    Sig {
        name,
        params,
        results,
        class_ranks,
        pure_scalar: true,
        tuple_result,
    }
}

fn array_ty(t: &mut Tape, ndims: u32, class: usize) -> ArrTy {
    let elem = match t.below(5) {
        2 => ScalarType::I64,
        4 => ScalarType::C128,
        _ => ScalarType::F64,
    };
    // One-dimensional arrays are row-major; two-dimensional ones either way.
    let layout = if ndims == 2 && t.below(2) == 1 {
        Layout::Col
    } else {
        Layout::Row
    };
    ArrTy {
        elem,
        ndims,
        layout,
        class,
    }
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: GTy,
    /// Loop variables and while counters are only read.
    writable: bool,
}

/// Loop variables that range over the extents of one shape class.
#[derive(Clone, Debug)]
struct Binding {
    class: usize,
    vars: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum LoopKind {
    None,
    /// `break` and `continue` are fine.
    For,
    /// A `continue` would skip the counter's increment: neither is generated.
    While,
}

struct FnGen<'a, 't> {
    t: &'a mut Tape<'t>,
    cfg: GenConfig,
    base: u8,
    callees: &'a [Sig],
    sig: &'a Sig,
    vars: Vec<Var>,
    bindings: Vec<Binding>,
    locals: Vec<Local>,
    stmts_left: u32,
    loop_kind: LoopKind,
    /// Inside a parfor body: only element reads and writes at the iteration's own
    /// indices, no calls, no whole-array reads, no scalar assignments.
    in_parfor: bool,
    pure_scalar: bool,
    fresh: usize,
}

impl<'a, 't> FnGen<'a, 't> {
    fn new(
        t: &'a mut Tape<'t>,
        cfg: GenConfig,
        base: u8,
        callees: &'a [Sig],
        sig: &'a Sig,
    ) -> Self {
        let vars = sig
            .params
            .iter()
            .enumerate()
            .map(|(k, ty)| Var {
                name: format!("p{k}"),
                ty: *ty,
                writable: false,
            })
            .collect();
        FnGen {
            t,
            cfg,
            base,
            callees,
            sig,
            vars,
            bindings: Vec::new(),
            locals: Vec::new(),
            stmts_left: cfg.max_stmts,
            loop_kind: LoopKind::None,
            in_parfor: false,
            pure_scalar: true,
            fresh: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn declare(&mut self, prefix: &str, ty: GTy, writable: bool) -> String {
        let name = self.fresh(prefix);
        self.locals.push(Local {
            name: name.clone(),
            ty: ty.to_type(),
        });
        self.vars.push(Var {
            name: name.clone(),
            ty,
            writable,
        });
        name
    }

    fn function(&mut self) -> Function {
        let mut body = Vec::new();
        // Locals, each assigned before anything reads it.
        for _ in 0..self.t.below(5) {
            let ty = match self.t.below(5) {
                0 => GTy::F64,
                1 => GTy::I64,
                2 => GTy::Bool,
                4 => GTy::C128,
                _ if !self.sig.class_ranks.is_empty() => {
                    let class = self.t.below(self.sig.class_ranks.len());
                    GTy::Arr(array_ty(self.t, self.sig.class_ranks[class], class))
                }
                _ => GTy::F64,
            };
            let init = self.expr(ty, self.cfg.max_expr_depth);
            let name = self.declare("x", ty, true);
            body.push(assign(&name, init));
        }
        body.extend(self.block_stmts(self.cfg.max_stmt_depth));
        body.push(self.return_stmt());
        Function {
            name: self.sig.name.clone(),
            params: self
                .sig
                .params
                .iter()
                .enumerate()
                .map(|(k, ty)| Param {
                    name: format!("p{k}"),
                    ty: ty.to_type(),
                    restrict: false,
                })
                .collect(),
            results: self.sig.result_types(),
            locals: std::mem::take(&mut self.locals),
            body,
            line: if self.t.one_in(4) {
                Some(1 + self.t.below(100) as u32)
            } else {
                None
            },
        }
    }

    fn return_stmt(&mut self) -> Stmt {
        let values: Vec<Expr> = self
            .sig
            .results
            .clone()
            .into_iter()
            .map(|ty| self.expr(ty, self.cfg.max_expr_depth))
            .collect();
        let values = if self.sig.tuple_result {
            vec![Expr::Tuple { items: values }]
        } else {
            values
        };
        Stmt::new(StmtKind::Return { values })
    }

    fn block_stmts(&mut self, depth: u32) -> Vec<Stmt> {
        let n = self.t.below(5);
        let mut out = Vec::new();
        for _ in 0..n {
            if self.stmts_left == 0 {
                break;
            }
            self.stmts_left -= 1;
            out.extend(self.stmt(depth));
        }
        out
    }

    fn block(&mut self, depth: u32) -> Block {
        let on_gpu = self.t.one_in(8);
        Block {
            on_gpu,
            stmts: self.block_stmts(depth),
        }
    }

    /// One statement (a while loop comes with its counter's initialisation).
    fn stmt(&mut self, depth: u32) -> Vec<Stmt> {
        let mut s = match self.t.below(12) {
            0 | 1 => self.set_var(false),
            2 => self.set_var(true),
            3 => self.set_element(),
            4 => self.set_selection().or_else(|| self.set_element()),
            5 if depth > 0 => self.if_stmt(depth),
            6 if depth > 0 => self.for_class(depth),
            7 if depth > 0 => self.for_small(depth),
            8 if depth > 0 => return self.while_stmt(depth),
            9 if depth > 0 => self.parfor(),
            10 => self.call_stmt(),
            11 => self.jump(),
            _ => self.set_var(false),
        };
        if let Some(s) = &mut s {
            if self.t.one_in(6) {
                s.line = Some(1 + self.t.below(1000) as u32);
            }
        }
        s.into_iter().collect()
    }

    /// `(set v e)` for a writable variable that is an array (`arrays`) or a scalar.
    fn set_var(&mut self, arrays: bool) -> Option<Stmt> {
        let targets: Vec<Var> = self
            .vars
            .iter()
            .filter(|v| v.writable && matches!(v.ty, GTy::Arr(_)) == arrays)
            .cloned()
            .collect();
        if targets.is_empty() {
            return None;
        }
        let v = self.t.pick(&targets).clone();
        let e = self.expr(v.ty, self.cfg.max_expr_depth);
        Some(assign(&v.name, e))
    }

    /// `(set (index A i ...) e)` with A's class bound by an enclosing loop.
    fn set_element(&mut self) -> Option<Stmt> {
        let (array, binding) = self.indexable(None)?;
        let GTy::Arr(a) = array.ty else { return None };
        let e = self.expr(GTy::scalar(a.elem), self.cfg.max_expr_depth);
        self.pure_scalar = false;
        let flags = self.flags();
        Some(Stmt::new(StmtKind::Assign {
            targets: vec![LValue::Index {
                array: array.name,
                indices: binding.vars.iter().map(Expr::var).collect(),
                flags,
            }],
            value: e,
        }))
    }

    /// An array variable (of element type `elem`, if given) whose class an enclosing
    /// loop binds, with that binding.
    fn indexable(&mut self, elem: Option<ScalarType>) -> Option<(Var, Binding)> {
        let candidates: Vec<(Var, Binding)> = self
            .vars
            .iter()
            .filter_map(|v| match v.ty {
                GTy::Arr(a) if elem.is_none_or(|e| e == a.elem) => self
                    .bindings
                    .iter()
                    .rev()
                    .find(|b| b.class == a.class)
                    .map(|b| (v.clone(), b.clone())),
                _ => None,
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        Some(self.t.pick(&candidates).clone())
    }

    fn flags(&mut self) -> IndexFlags {
        // In bounds by construction, so `:nocheck` is truthful; `:neg` changes nothing for
        // non-negative indices (0-based only).
        let check = !self.t.one_in(4);
        let negative = self.base == 0 && self.t.one_in(5);
        IndexFlags {
            check,
            negative,
            ..IndexFlags::default()
        }
    }

    fn if_stmt(&mut self, depth: u32) -> Option<Stmt> {
        let cond = self.expr(GTy::Bool, self.cfg.max_expr_depth);
        let then = self.block(depth - 1);
        let els = if self.t.below(2) == 1 {
            Some(self.block(depth - 1))
        } else {
            None
        };
        Some(Stmt::new(StmtKind::If { cond, then, els }))
    }

    /// The domain of all positions of a class: one range per dimension.
    fn class_domain(&mut self, class: usize) -> Option<(Expr, usize)> {
        let rep = self
            .vars
            .iter()
            .find(|v| matches!(v.ty, GTy::Arr(a) if a.class == class))?
            .name
            .clone();
        let rank = self.sig.class_ranks[class] as usize;
        let ranges = (0..rank)
            .map(|k| self.extent_range(&rep, k as u32))
            .collect::<Vec<_>>();
        let domain = if rank == 1 && self.t.below(2) == 0 {
            ranges.into_iter().next().unwrap()
        } else {
            Expr::Domain { ranges }
        };
        Some((domain, rank))
    }

    /// `base .. dim(rep, k) - 1 + base`, inclusive.
    fn extent_range(&mut self, rep: &str, k: u32) -> Expr {
        let dim = Expr::Dim {
            arg: Box::new(Expr::var(rep)),
            axis: k,
        };
        let stop = if self.base == 0 {
            Expr::binary(BinOp::Sub, dim, Expr::i64(1))
        } else {
            dim
        };
        Expr::Range {
            start: Some(Box::new(Expr::i64(self.base as i64))),
            stop: Some(Box::new(stop)),
            step: None,
        }
    }

    fn loop_vars(&mut self, n: usize) -> Vec<String> {
        (0..n).map(|_| self.declare("i", GTy::I64, false)).collect()
    }

    /// Loop variables go out of scope after their loop: a loop of no iterations leaves
    /// them unassigned. (They stay declared as locals.)
    fn end_scope(&mut self, names: &[String]) {
        self.vars.retain(|v| !names.contains(&v.name));
    }

    fn for_class(&mut self, depth: u32) -> Option<Stmt> {
        if self.sig.class_ranks.is_empty() {
            return None;
        }
        let class = self.t.below(self.sig.class_ranks.len());
        let (domain, rank) = self.class_domain(class)?;
        let vars = self.loop_vars(rank);
        self.bindings.push(Binding {
            class,
            vars: vars.clone(),
        });
        let saved = std::mem::replace(&mut self.loop_kind, LoopKind::For);
        let body = self.block(depth - 1);
        self.loop_kind = saved;
        self.bindings.pop();
        self.end_scope(&vars);
        Some(Stmt::new(StmtKind::For { vars, domain, body }))
    }

    /// A loop over a small literal range, possibly descending.
    fn for_small(&mut self, depth: u32) -> Option<Stmt> {
        let (start, stop, step) = *self.t.pick(&[
            (0, 3, None),
            (1, 4, Some(1)),
            (5, 1, Some(-2)),
            (2, 1, None),
        ]);
        let domain = Expr::Range {
            start: Some(Box::new(Expr::i64(start))),
            stop: Some(Box::new(Expr::i64(stop))),
            step: step.map(|s| Box::new(Expr::i64(s))),
        };
        let vars = self.loop_vars(1);
        let saved = std::mem::replace(&mut self.loop_kind, LoopKind::For);
        let body = self.block(depth - 1);
        self.loop_kind = saved;
        self.end_scope(&vars);
        Some(Stmt::new(StmtKind::For { vars, domain, body }))
    }

    fn while_stmt(&mut self, depth: u32) -> Vec<Stmt> {
        let counter = self.declare("w", GTy::I64, false);
        let limit = 1 + self.t.below(4) as i64;
        let saved = std::mem::replace(&mut self.loop_kind, LoopKind::While);
        let mut body = self.block(depth - 1);
        self.loop_kind = saved;
        body.stmts.push(assign(
            &counter,
            Expr::binary(BinOp::Add, Expr::var(&counter), Expr::i64(1)),
        ));
        // Read only inside the loop: the loop itself may sit in a branch never taken.
        self.end_scope(std::slice::from_ref(&counter));
        vec![
            assign(&counter, Expr::i64(0)),
            Stmt::new(StmtKind::While {
                cond: Expr::binary(BinOp::Lt, Expr::var(&counter), Expr::i64(limit)),
                body,
            }),
        ]
    }

    /// A parfor whose body writes elements at its own indices only.
    fn parfor(&mut self) -> Option<Stmt> {
        if self.sig.class_ranks.is_empty() || self.in_parfor {
            return None;
        }
        let class = self.t.below(self.sig.class_ranks.len());
        let (domain, rank) = self.class_domain(class)?;
        let vars = self.loop_vars(rank);
        let saved_bindings = std::mem::replace(
            &mut self.bindings,
            vec![Binding {
                class,
                vars: vars.clone(),
            }],
        );
        let saved_kind = std::mem::replace(&mut self.loop_kind, LoopKind::None);
        self.in_parfor = true;
        // A loop-private scalar: assigned first in every iteration from values the loop
        // does not write (declared after its value, so the value cannot read it), read
        // by the element writes after it, out of scope after the loop.
        let mut prelude = Vec::new();
        let mut scoped = vars.clone();
        if self.t.one_in(2) {
            let ty = *self.t.pick(&[GTy::F64, GTy::I64]);
            let value = self.expr(ty, 2);
            let name = self.declare("t", ty, false);
            prelude.push(assign(&name, value));
            scoped.push(name);
        }
        let mut stmts = Vec::new();
        let counters: Vec<String> = self
            .vars
            .iter()
            .filter(
                |v| matches!(v.ty, GTy::Arr(a) if a.class == class && a.elem == ScalarType::I64),
            )
            .map(|v| v.name.clone())
            .collect();
        if !counters.is_empty() && self.t.one_in(3) {
            // Every iteration adds to the first element of an integer array of this class
            // (non-empty, since an iteration runs). Integer addition is associative, so the
            // order does not matter; nothing else in the body touches the array.
            let array = self.t.pick(&counters).clone();
            let value = if self.t.below(2) == 0 {
                Expr::var(self.t.pick(&vars))
            } else {
                Expr::i64(*self.t.pick(&[1, -2, 5]))
            };
            let indices = vec![Expr::i64(self.base as i64); rank];
            stmts.push(Stmt::new(StmtKind::Expr {
                expr: Expr::AtomicAdd {
                    array,
                    indices,
                    value: Box::new(value),
                },
            }));
            self.pure_scalar = false;
        } else if self.t.one_in(3) {
            let cond = self.expr(GTy::Bool, 1);
            stmts.push(Stmt::new(StmtKind::If {
                cond,
                then: Block {
                    on_gpu: false,
                    stmts: vec![Stmt::new(StmtKind::Continue)],
                },
                els: None,
            }));
        }
        if stmts.is_empty() || matches!(stmts[0].kind, StmtKind::If { .. }) {
            for _ in 0..1 + self.t.below(2) {
                stmts.extend(self.set_element());
            }
        }
        self.in_parfor = false;
        self.loop_kind = saved_kind;
        self.bindings = saved_bindings;
        self.end_scope(&scoped);
        prelude.extend(stmts);
        let stmts = prelude;
        let on_gpu = self.t.one_in(3);
        Some(Stmt::new(StmtKind::Parfor {
            vars,
            domain,
            body: Block { on_gpu, stmts },
        }))
    }

    /// `(expr (call f ...))` of a void function, or `(mset (a b) (call f ...))`.
    fn call_stmt(&mut self) -> Option<Stmt> {
        if self.in_parfor {
            return None;
        }
        let callees: Vec<Sig> = self
            .callees
            .iter()
            .filter(|s| s.results.len() != 1)
            .cloned()
            .collect();
        if callees.is_empty() {
            return None;
        }
        let callee = self.t.pick(&callees).clone();
        let mapping = self.class_mapping(&callee, None)?;
        let results: Vec<GTy> = callee
            .results
            .iter()
            .map(|r| map_ty(*r, &mapping))
            .collect();
        let mut targets = Vec::new();
        for r in &results {
            let fits: Vec<Var> = self
                .vars
                .iter()
                .filter(|v| v.writable && v.ty == *r)
                .cloned()
                .collect();
            if fits.is_empty() {
                return None;
            }
            targets.push(LValue::Var {
                name: self.t.pick(&fits).name.clone(),
            });
        }
        let call = self.call_expr(&callee, &mapping);
        if !callee.pure_scalar {
            self.pure_scalar = false;
        }
        if !results.is_empty() && self.t.below(2) == 1 {
            // Through a tuple local: (set t (call ...)) then (mset (a b) t).
            let items: Vec<Type> = results.iter().map(|r| r.to_type()).collect();
            let name = self.fresh("t");
            self.locals.push(Local {
                name: name.clone(),
                ty: Type::Tuple { items },
            });
            return Some(Stmt::new(StmtKind::Block(Block {
                on_gpu: false,
                stmts: vec![
                    assign(&name, call),
                    Stmt::new(StmtKind::Assign {
                        targets,
                        value: Expr::var(&name),
                    }),
                ],
            })));
        }
        Some(Stmt::new(if results.is_empty() {
            StmtKind::Expr { expr: call }
        } else {
            StmtKind::Assign {
                targets,
                value: call,
            }
        }))
    }

    fn jump(&mut self) -> Option<Stmt> {
        match self.loop_kind {
            LoopKind::For if !self.in_parfor => {
                let cond = self.expr(GTy::Bool, 1);
                let kind = if self.t.below(2) == 0 {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                };
                Some(Stmt::new(StmtKind::If {
                    cond,
                    then: Block {
                        on_gpu: false,
                        stmts: vec![Stmt::new(kind)],
                    },
                    els: None,
                }))
            }
            LoopKind::None if !self.in_parfor && self.t.below(2) == 0 => {
                // An early return.
                let cond = self.expr(GTy::Bool, 1);
                let ret = self.return_stmt();
                Some(Stmt::new(StmtKind::If {
                    cond,
                    then: Block {
                        on_gpu: false,
                        stmts: vec![ret],
                    },
                    els: None,
                }))
            }
            _ => None,
        }
    }

    /// Caller classes for the callee's classes, rank by rank; `result` pins the class of
    /// an array result. None when the caller has no class of a needed rank.
    fn class_mapping(
        &mut self,
        callee: &Sig,
        result: Option<(usize, usize)>,
    ) -> Option<Vec<usize>> {
        let mut mapping = Vec::new();
        for (c, rank) in callee.class_ranks.iter().enumerate() {
            if let Some((callee_class, caller_class)) = result {
                if callee_class == c {
                    mapping.push(caller_class);
                    continue;
                }
            }
            let options: Vec<usize> = (0..self.sig.class_ranks.len())
                .filter(|&k| self.sig.class_ranks[k] == *rank)
                .collect();
            if options.is_empty() {
                return None;
            }
            mapping.push(*self.t.pick(&options));
        }
        Some(mapping)
    }

    fn call_expr(&mut self, callee: &Sig, mapping: &[usize]) -> Expr {
        let depth = self.cfg.max_expr_depth.saturating_sub(1);
        let args = callee
            .params
            .iter()
            .map(|p| self.expr(map_ty(*p, mapping), depth))
            .collect();
        Expr::Call {
            func: callee.name.clone(),
            args,
        }
    }

    // ---- expressions ----

    fn expr(&mut self, ty: GTy, depth: u32) -> Expr {
        match ty {
            GTy::Arr(a) => self.array_expr(a, depth),
            GTy::Bool => self.bool_expr(depth),
            GTy::I64 => self.int_expr(depth),
            GTy::F64 => self.float_expr(depth),
            GTy::C128 => self.complex_expr(depth),
        }
    }

    fn scalar_var(&mut self, ty: GTy) -> Option<Expr> {
        let names: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.ty == ty)
            .map(|v| v.name.clone())
            .collect();
        if names.is_empty() {
            None
        } else {
            Some(Expr::var(self.t.pick(&names)))
        }
    }

    fn element_read(&mut self, elem: ScalarType) -> Option<Expr> {
        let (array, binding) = self.indexable(Some(elem))?;
        let flags = self.flags();
        Some(Expr::Index {
            array: Box::new(Expr::var(array.name)),
            indices: binding.vars.iter().map(Expr::var).collect(),
            flags,
        })
    }

    /// An array variable of this element type, for whole-array reads (not in parfor).
    fn any_array(&mut self, elem: ScalarType, ndims: Option<u32>) -> Option<(String, ArrTy)> {
        if self.in_parfor {
            return None;
        }
        let arrays: Vec<(String, ArrTy)> = self
            .vars
            .iter()
            .filter_map(|v| match v.ty {
                GTy::Arr(a) if a.elem == elem && ndims.is_none_or(|n| n == a.ndims) => {
                    Some((v.name.clone(), a))
                }
                _ => None,
            })
            .collect();
        if arrays.is_empty() {
            None
        } else {
            Some(self.t.pick(&arrays).clone())
        }
    }

    fn float_expr(&mut self, depth: u32) -> Expr {
        let leaf = |g: &mut Self| -> Expr {
            if g.t.below(2) == 1 {
                if let Some(v) = g.scalar_var(GTy::F64) {
                    return v;
                }
            }
            if g.t.below(2) == 1 {
                if let Some(e) = g.element_read(ScalarType::F64) {
                    return e;
                }
            }
            Expr::f64(*g.t.pick(&[
                0.0,
                1.0,
                -2.5,
                0.5,
                3.0,
                1e-3,
                -0.0,
                1e300,
                7.25,
                f64::INFINITY,
                0.1,
            ]))
        };
        if depth == 0 {
            return leaf(self);
        }
        let d = depth - 1;
        match self.t.below(12) {
            0 | 1 => leaf(self),
            2 | 3 => {
                let op = *self.t.pick(&[
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::Div,
                    BinOp::IDiv,
                    BinOp::Mod,
                ]);
                Expr::binary(op, self.float_expr(d), self.float_expr(d))
            }
            4 => Expr::Unary {
                op: UnOp::Neg,
                arg: Box::new(self.float_expr(d)),
            },
            5 => {
                let f = *self.t.pick(&[
                    LibFn::Sqrt,
                    LibFn::Exp,
                    LibFn::Sin,
                    LibFn::Cos,
                    LibFn::Tanh,
                    LibFn::Abs,
                    LibFn::Floor,
                    LibFn::Round,
                    LibFn::Atan,
                    LibFn::Log,
                ]);
                Expr::Lib {
                    func: f,
                    args: vec![self.float_expr(d)],
                }
            }
            6 => {
                let f =
                    *self
                        .t
                        .pick(&[LibFn::Pow, LibFn::Min, LibFn::Max, LibFn::Atan2, LibFn::Rem]);
                Expr::Lib {
                    func: f,
                    args: vec![self.float_expr(d), self.float_expr(d)],
                }
            }
            7 => Expr::Cast {
                to: Type::F64,
                arg: Box::new(self.int_expr(d)),
            },
            8 => {
                // Through f32 or complex arithmetic and back.
                if self.t.below(2) == 0 {
                    let x = Expr::Cast {
                        to: Type::F32,
                        arg: Box::new(self.float_expr(d)),
                    };
                    let c = Expr::lit(Literal::F32(*self.t.pick(&[1.5f32, -0.25, 3.0])));
                    Expr::Cast {
                        to: Type::F64,
                        arg: Box::new(Expr::binary(BinOp::Mul, x, c)),
                    }
                } else {
                    let z = self.complex_expr(d);
                    let part = *self.t.pick(&[LibFn::Real, LibFn::Abs, LibFn::Imag]);
                    Expr::Lib {
                        func: part,
                        args: vec![z],
                    }
                }
            }
            9 => match self.any_array(ScalarType::F64, None) {
                Some((name, a)) if self.t.below(2) == 0 => {
                    self.reduce_to_scalar(name, a, ScalarType::F64)
                }
                _ => self
                    .selection_sum(ScalarType::F64)
                    .unwrap_or_else(|| leaf(self)),
            },
            10 => match self.any_array(ScalarType::F64, Some(1)) {
                // A dot product of two arrays of one class. Float matmul adds in an
                // unspecified order (docs/vrir-semantics.md), so the operands are made
                // small integers, (floor (rem x 64.0)), NaN staying NaN: every order of
                // additions then gives the exact sum. `+ 0.0` makes the sign of a zero
                // sum (also unspecified) positive.
                Some((name, a)) => {
                    let other = self
                        .same_class(a, ScalarType::F64)
                        .unwrap_or_else(|| Expr::var(&name));
                    let small_int = |e: Expr| Expr::Lib {
                        func: LibFn::Floor,
                        args: vec![Expr::Lib {
                            func: LibFn::Rem,
                            args: vec![e, Expr::f64(64.0)],
                        }],
                    };
                    Expr::binary(
                        BinOp::Add,
                        Expr::Lib {
                            func: LibFn::Matmul,
                            args: vec![small_int(Expr::var(name)), small_int(other)],
                        },
                        Expr::f64(0.0),
                    )
                }
                None => leaf(self),
            },
            _ => self.scalar_call(GTy::F64).unwrap_or_else(|| leaf(self)),
        }
    }

    /// A c128 expression: complex arithmetic (inline in compiled code), the
    /// transcendental functions and `pow` (num-complex), casts from reals and through
    /// c64, reductions of complex arrays, calls.
    fn complex_expr(&mut self, depth: u32) -> Expr {
        let leaf = |g: &mut Self| -> Expr {
            if g.t.below(2) == 1 {
                if let Some(v) = g.scalar_var(GTy::C128) {
                    return v;
                }
            }
            if g.t.below(2) == 1 {
                if let Some(e) = g.element_read(ScalarType::C128) {
                    return e;
                }
            }
            Expr::lit(Literal::C128(*g.t.pick(&[
                [0.0, 0.0],
                [1.0, 0.0],
                [0.5, -1.0],
                [-2.5, 3.0],
                [0.0, 1.0],
                [1e300, -1e300],
                [f64::INFINITY, 0.5],
                [-0.0, 0.1],
            ])))
        };
        if depth == 0 {
            return leaf(self);
        }
        let d = depth - 1;
        match self.t.below(10) {
            0 | 1 => leaf(self),
            2 | 3 => {
                let op = *self
                    .t
                    .pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]);
                Expr::binary(op, self.complex_expr(d), self.complex_expr(d))
            }
            4 => {
                if self.t.below(2) == 0 {
                    Expr::Unary {
                        op: UnOp::Neg,
                        arg: Box::new(self.complex_expr(d)),
                    }
                } else {
                    let f = *self.t.pick(&[
                        LibFn::Sqrt,
                        LibFn::Exp,
                        LibFn::Log,
                        LibFn::Log10,
                        LibFn::Sin,
                        LibFn::Cos,
                        LibFn::Tan,
                        LibFn::Asin,
                        LibFn::Acos,
                        LibFn::Atan,
                        LibFn::Sinh,
                        LibFn::Cosh,
                        LibFn::Tanh,
                        LibFn::Conj,
                    ]);
                    Expr::Lib {
                        func: f,
                        args: vec![self.complex_expr(d)],
                    }
                }
            }
            5 => Expr::Lib {
                func: LibFn::Pow,
                args: vec![self.complex_expr(d), self.complex_expr(d)],
            },
            6 => {
                if self.t.below(2) == 0 {
                    Expr::Lib {
                        func: LibFn::Complex,
                        args: vec![self.float_expr(d), self.float_expr(d)],
                    }
                } else {
                    let x = if self.t.below(2) == 0 {
                        self.float_expr(d)
                    } else {
                        self.int_expr(d)
                    };
                    Expr::Cast {
                        to: Type::C128,
                        arg: Box::new(x),
                    }
                }
            }
            7 => {
                // Through c64 arithmetic and back.
                let x = Expr::Cast {
                    to: Type::C64,
                    arg: Box::new(self.complex_expr(d)),
                };
                let c = Expr::lit(Literal::C64(*self.t.pick(&[[1.5f32, -0.25], [0.0, 2.0]])));
                let op = *self.t.pick(&[BinOp::Mul, BinOp::Div, BinOp::Add]);
                let y = if self.t.below(2) == 0 {
                    Expr::binary(op, x, c)
                } else {
                    Expr::Lib {
                        func: *self.t.pick(&[LibFn::Sqrt, LibFn::Exp]),
                        args: vec![x],
                    }
                };
                Expr::Cast {
                    to: Type::C128,
                    arg: Box::new(y),
                }
            }
            8 => match self.any_array(ScalarType::C128, None) {
                Some((name, a)) => self.reduce_to_scalar(name, a, ScalarType::C128),
                None => leaf(self),
            },
            _ => self.scalar_call(GTy::C128).unwrap_or_else(|| leaf(self)),
        }
    }

    fn reduce_to_scalar(&mut self, name: String, a: ArrTy, elem: ScalarType) -> Expr {
        let op = *self.t.pick(&[ReduceOp::Sum, ReduceOp::Prod]);
        let arg = Box::new(Expr::var(name));
        debug_assert_eq!(a.elem, elem);
        // f64 and c128: also the means, and R's extended accumulator (`:acc f80`).
        let (op, acc) = if matches!(elem, ScalarType::F64 | ScalarType::C128) {
            let op = match self.t.below(4) {
                0 => ReduceOp::Mean,
                1 => ReduceOp::MeanRefined,
                _ => op,
            };
            let acc = if cfg!(target_arch = "x86_64") && self.t.below(2) == 0 {
                Some(Accum::F80)
            } else {
                None
            };
            (op, acc)
        } else {
            (op, None)
        };
        if a.ndims == 2 && op != ReduceOp::MeanRefined && self.t.below(2) == 0 {
            // Reduce one axis, then the rest.
            let axis = self.t.below(2) as u32;
            Expr::Reduce {
                op: ReduceOp::Sum,
                arg: Box::new(Expr::Reduce {
                    op,
                    arg,
                    axis: Some(axis),
                    acc,
                }),
                axis: None,
                acc,
            }
        } else {
            Expr::Reduce {
                op,
                arg,
                axis: None,
                acc,
            }
        }
    }

    /// A variable of the same class and element type (any layout).
    fn same_class(&mut self, a: ArrTy, elem: ScalarType) -> Option<Expr> {
        let names: Vec<String> = self
            .vars
            .iter()
            .filter(|v| matches!(v.ty, GTy::Arr(b) if b.class == a.class && b.elem == elem))
            .map(|v| v.name.clone())
            .collect();
        if names.is_empty() {
            None
        } else {
            Some(Expr::var(self.t.pick(&names)))
        }
    }

    fn int_expr(&mut self, depth: u32) -> Expr {
        let leaf = |g: &mut Self| -> Expr {
            if g.t.below(2) == 1 {
                if let Some(v) = g.scalar_var(GTy::I64) {
                    return v;
                }
            }
            if g.t.below(2) == 1 {
                if let Some(e) = g.element_read(ScalarType::I64) {
                    return e;
                }
            }
            Expr::i64(*g.t.pick(&[0, 1, -3, 7, 42, -100, i64::MAX, i64::MIN]))
        };
        if depth == 0 {
            return leaf(self);
        }
        let d = depth - 1;
        match self.t.below(11) {
            0 | 1 => leaf(self),
            2 | 3 => {
                let op = *self.t.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
                Expr::binary(op, self.int_expr(d), self.int_expr(d))
            }
            4 => {
                // Division by a non-zero literal only.
                let op = *self.t.pick(&[BinOp::Div, BinOp::IDiv, BinOp::Mod]);
                let divisor = *self.t.pick(&[1, 2, -3, 7]);
                Expr::binary(op, self.int_expr(d), Expr::i64(divisor))
            }
            5 => Expr::Unary {
                op: UnOp::Neg,
                arg: Box::new(self.int_expr(d)),
            },
            6 => {
                let f = *self.t.pick(&[LibFn::Abs, LibFn::Min, LibFn::Max]);
                let args = if f == LibFn::Abs {
                    vec![self.int_expr(d)]
                } else {
                    vec![self.int_expr(d), self.int_expr(d)]
                };
                Expr::Lib { func: f, args }
            }
            7 => {
                if self.t.below(2) == 0 {
                    Expr::Cast {
                        to: Type::I64,
                        arg: Box::new(self.bool_expr(d)),
                    }
                } else {
                    // Wraps through i32.
                    let x = Expr::Cast {
                        to: Type::I32,
                        arg: Box::new(self.int_expr(d)),
                    };
                    Expr::Cast {
                        to: Type::I64,
                        arg: Box::new(Expr::binary(BinOp::Add, x, Expr::lit(Literal::I32(-2)))),
                    }
                }
            }
            8 => {
                // Shapes: dim, len, ndims of any array (even inside parfor: no element read).
                let arrays: Vec<(String, u32)> = self
                    .vars
                    .iter()
                    .filter_map(|v| match v.ty {
                        GTy::Arr(a) => Some((v.name.clone(), a.ndims)),
                        _ => None,
                    })
                    .collect();
                if arrays.is_empty() {
                    return leaf(self);
                }
                let (name, ndims) = self.t.pick(&arrays).clone();
                match self.t.below(3) {
                    0 => Expr::Dim {
                        arg: Box::new(Expr::var(name)),
                        axis: self.t.below(ndims as usize) as u32,
                    },
                    1 => Expr::Lib {
                        func: LibFn::Len,
                        args: vec![Expr::var(name)],
                    },
                    _ => Expr::Lib {
                        func: LibFn::Ndims,
                        args: vec![Expr::var(name)],
                    },
                }
            }
            9 => match self.any_array(ScalarType::I64, None) {
                Some((name, a)) if self.t.below(2) == 0 => {
                    self.reduce_to_scalar(name, a, ScalarType::I64)
                }
                _ => self
                    .selection_sum(ScalarType::I64)
                    .unwrap_or_else(|| leaf(self)),
            },
            _ => self.scalar_call(GTy::I64).unwrap_or_else(|| leaf(self)),
        }
    }

    fn bool_expr(&mut self, depth: u32) -> Expr {
        let leaf = |g: &mut Self| -> Expr {
            if g.t.below(2) == 1 {
                if let Some(v) = g.scalar_var(GTy::Bool) {
                    return v;
                }
            }
            Expr::lit(Literal::Bool(g.t.below(2) == 1))
        };
        if depth == 0 {
            return leaf(self);
        }
        let d = depth - 1;
        match self.t.below(8) {
            0 => leaf(self),
            1 | 2 => {
                let op = *self.t.pick(&[
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                    BinOp::Eq,
                    BinOp::Ne,
                ]);
                match self.t.below(3) {
                    0 => Expr::binary(op, self.int_expr(d), self.int_expr(d)),
                    1 => Expr::binary(op, self.float_expr(d), self.float_expr(d)),
                    _ => {
                        // Complex numbers compare for equality only.
                        let op = if matches!(op, BinOp::Eq | BinOp::Lt | BinOp::Le) {
                            BinOp::Eq
                        } else {
                            BinOp::Ne
                        };
                        Expr::binary(op, self.complex_expr(d), self.complex_expr(d))
                    }
                }
            }
            3 => {
                let op = *self.t.pick(&[BinOp::And, BinOp::Or, BinOp::Eq, BinOp::Ne]);
                Expr::binary(op, self.bool_expr(d), self.bool_expr(d))
            }
            4 => Expr::Unary {
                op: UnOp::Not,
                arg: Box::new(self.bool_expr(d)),
            },
            5 => Expr::Lib {
                func: *self.t.pick(&[LibFn::IsNan, LibFn::IsInf]),
                args: vec![if self.t.below(3) == 2 {
                    self.complex_expr(d)
                } else {
                    self.float_expr(d)
                }],
            },
            6 => Expr::Cast {
                to: Type::BOOL,
                arg: Box::new(self.int_expr(d)),
            },
            _ => self.scalar_call(GTy::Bool).unwrap_or_else(|| leaf(self)),
        }
    }

    /// A call of an earlier function with one result of type `ty` (never in parfor).
    fn scalar_call(&mut self, ty: GTy) -> Option<Expr> {
        if self.in_parfor {
            return None;
        }
        // One result of this type, or (through `tget`) an item of several results.
        let callees: Vec<Sig> = self
            .callees
            .iter()
            .filter(|s| s.results.contains(&ty) && (s.results.len() > 1 || !s.tuple_result))
            .cloned()
            .collect();
        if callees.is_empty() {
            return None;
        }
        let callee = self.t.pick(&callees).clone();
        let mapping = self.class_mapping(&callee, None)?;
        if !callee.pure_scalar {
            self.pure_scalar = false;
        }
        let call = self.call_expr(&callee, &mapping);
        if callee.results.len() == 1 {
            return Some(call);
        }
        let items: Vec<usize> = (0..callee.results.len())
            .filter(|&k| callee.results[k] == ty)
            .collect();
        let index = *self.t.pick(&items) as u32;
        Some(Expr::TupleGet {
            arg: Box::new(call),
            index,
        })
    }

    fn array_expr(&mut self, a: ArrTy, depth: u32) -> Expr {
        if depth == 0 {
            return self.array_leaf(a);
        }
        let d = depth - 1;
        let elem_ty = GTy::scalar(a.elem);
        match self.t.below(12) {
            0 | 1 => self.array_leaf(a),
            2 | 3 => {
                let ops: &[BinOp] = if a.elem != ScalarType::I64 {
                    &[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div]
                } else {
                    &[BinOp::Add, BinOp::Sub, BinOp::Mul]
                };
                let op = *self.t.pick(ops);
                // The result's layout is its first array operand's.
                match self.t.below(3) {
                    0 => Expr::binary(op, self.array_expr(a, d), self.expr(elem_ty, d)),
                    1 => Expr::binary(op, self.expr(elem_ty, d), self.array_expr(a, d)),
                    _ => {
                        let layout = if a.ndims == 2 {
                            *self.t.pick(&[Layout::Row, Layout::Col])
                        } else {
                            Layout::Row
                        };
                        Expr::binary(
                            op,
                            self.array_expr(a, d),
                            self.array_expr(ArrTy { layout, ..a }, d),
                        )
                    }
                }
            }
            4 => Expr::Unary {
                op: UnOp::Neg,
                arg: Box::new(self.array_expr(a, d)),
            },
            5 => {
                let f = if a.elem == ScalarType::F64 {
                    *self.t.pick(&[
                        LibFn::Sqrt,
                        LibFn::Exp,
                        LibFn::Sin,
                        LibFn::Abs,
                        LibFn::Floor,
                        LibFn::Tanh,
                    ])
                } else if a.elem == ScalarType::C128 {
                    *self
                        .t
                        .pick(&[LibFn::Sqrt, LibFn::Exp, LibFn::Sin, LibFn::Conj, LibFn::Log])
                } else {
                    LibFn::Abs
                };
                Expr::Lib {
                    func: f,
                    args: vec![self.array_expr(a, d)],
                }
            }
            6 if a.elem == ScalarType::C128 => {
                // Element-wise `complex` of two real arrays, or `pow` with a scalar.
                if self.t.below(2) == 0 {
                    let re = ArrTy {
                        elem: ScalarType::F64,
                        ..a
                    };
                    Expr::Lib {
                        func: LibFn::Complex,
                        args: vec![self.array_expr(re, d), self.array_expr(re, d)],
                    }
                } else {
                    Expr::Lib {
                        func: LibFn::Pow,
                        args: vec![self.array_expr(a, d), self.expr(elem_ty, d)],
                    }
                }
            }
            6 => {
                let f = *self.t.pick(&[LibFn::Min, LibFn::Max]);
                Expr::Lib {
                    func: f,
                    args: vec![self.array_expr(a, d), self.expr(elem_ty, d)],
                }
            }
            7 => {
                // A cast: int to float, or a change of layout.
                let from = match a.elem {
                    ScalarType::F64 if self.t.below(2) == 0 => ScalarType::I64,
                    ScalarType::C128 if self.t.below(2) == 0 => ScalarType::F64,
                    e => e,
                };
                let layout = if a.ndims == 2 {
                    *self.t.pick(&[Layout::Row, Layout::Col])
                } else {
                    Layout::Row
                };
                Expr::Cast {
                    to: GTy::Arr(a).to_type(),
                    arg: Box::new(self.array_expr(
                        ArrTy {
                            elem: from,
                            layout,
                            ..a
                        },
                        d,
                    )),
                }
            }
            8 => Expr::Lib {
                func: LibFn::Copy,
                args: vec![self.array_expr(a, d)],
            },
            9 | 10 => self.map_expr(a, d).unwrap_or_else(|| self.array_leaf(a)),
            _ => self.array_call(a).unwrap_or_else(|| self.array_leaf(a)),
        }
    }

    /// A variable of exactly this type, a full slice of one, or a fresh allocation with
    /// the class's extents.
    fn array_leaf(&mut self, a: ArrTy) -> Expr {
        let names: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.ty == GTy::Arr(a))
            .map(|v| v.name.clone())
            .collect();
        if !names.is_empty() && self.t.below(3) != 0 {
            let name = self.t.pick(&names).clone();
            if self.t.one_in(4) {
                // A slice of the same shape: each axis whole or reversed.
                let indices = (0..a.ndims).map(|_| self.shape_keeping_range()).collect();
                return Expr::Index {
                    array: Box::new(Expr::var(name)),
                    indices,
                    flags: self.slice_flags(),
                };
            }
            if a.ndims == 1 && !self.in_parfor && self.t.one_in(6) {
                if let Some(g) = self.class_gather(&name, a) {
                    return Expr::Index {
                        array: Box::new(Expr::var(name)),
                        indices: vec![g],
                        flags: self.slice_flags(),
                    };
                }
            }
            return Expr::var(name);
        }
        let rep = self
            .vars
            .iter()
            .find(|v| matches!(v.ty, GTy::Arr(b) if b.class == a.class))
            .map(|v| v.name.clone())
            .expect("every class has a parameter");
        let dims = (0..a.ndims)
            .map(|k| Expr::Dim {
                arg: Box::new(Expr::var(&rep)),
                axis: k,
            })
            .collect();
        let ty = ArrayType::new(a.elem, a.ndims, a.layout);
        // Never `empty`: its contents are unspecified, so backends may differ.
        let init = match self.t.below(3) {
            0 => AllocInit::Zeros,
            1 => AllocInit::Ones,
            _ => {
                let v = match a.elem {
                    ScalarType::F64 => Expr::f64(2.5),
                    ScalarType::C128 => Expr::lit(Literal::C128([2.5, -1.0])),
                    _ => Expr::i64(-4),
                };
                AllocInit::Fill { value: Box::new(v) }
            }
        };
        Expr::Alloc { init, ty, dims }
    }

    /// `:` or `(range _ _ -1)`: the whole axis, forwards or backwards.
    fn shape_keeping_range(&mut self) -> Expr {
        let step = if self.t.below(2) == 0 {
            None
        } else {
            Some(Box::new(Expr::i64(-1)))
        };
        Expr::Range {
            start: None,
            stop: None,
            step,
        }
    }

    /// Flags of a slice, gather or mask: `:neg` (0-based only; positions are never
    /// negative) and `:nocheck` (truthful: in bounds by construction).
    fn slice_flags(&mut self) -> IndexFlags {
        self.flags()
    }

    fn base_expr(&self) -> Expr {
        Expr::i64(self.base as i64)
    }

    /// `(+ (mod G divisor) base)` for an `i64` vector variable G (of class `class`, if
    /// given): positions 0 .. divisor-1 as written.
    fn gather_of(&mut self, class: Option<usize>, divisor: Expr) -> Option<Expr> {
        let names: Vec<String> = self
            .vars
            .iter()
            .filter(|v| {
                matches!(v.ty, GTy::Arr(b) if b.elem == ScalarType::I64 && b.ndims == 1
                    && class.is_none_or(|c| c == b.class))
            })
            .map(|v| v.name.clone())
            .collect();
        if names.is_empty() {
            return None;
        }
        let g = Expr::var(self.t.pick(&names));
        Some(Expr::binary(
            BinOp::Add,
            Expr::binary(BinOp::Mod, g, divisor),
            self.base_expr(),
        ))
    }

    /// A gather into vector `x` of class `a.class` by a vector of the same class: as
    /// long as x, so in bounds (the divisor is at least 1; when x is empty so is G).
    fn class_gather(&mut self, x: &str, a: ArrTy) -> Option<Expr> {
        let extent = Expr::Dim {
            arg: Box::new(Expr::var(x)),
            axis: 0,
        };
        let divisor = Expr::Lib {
            func: LibFn::Max,
            args: vec![extent, Expr::i64(1)],
        };
        self.gather_of(Some(a.class), divisor)
    }

    /// A mask over vector `x` of class `a.class`: a comparison of an array of that class.
    fn class_mask(&mut self, a: ArrTy) -> Option<Expr> {
        let names: Vec<(String, ScalarType)> = self
            .vars
            .iter()
            .filter_map(|v| match v.ty {
                // Complex arrays are not ordered: only i64 and f64 vectors make masks.
                GTy::Arr(b)
                    if b.class == a.class
                        && b.ndims == 1
                        && matches!(b.elem, ScalarType::I64 | ScalarType::F64) =>
                {
                    Some((v.name.clone(), b.elem))
                }
                _ => None,
            })
            .collect();
        if names.is_empty() {
            return None;
        }
        let (y, elem) = self.t.pick(&names).clone();
        let zero = if elem == ScalarType::I64 {
            Expr::i64(0)
        } else {
            Expr::f64(0.0)
        };
        let op = *self.t.pick(&[BinOp::Gt, BinOp::Le, BinOp::Ne]);
        Some(Expr::binary(op, Expr::var(y), zero))
    }

    /// One index on axis `k` of `x`, whose class the loop variables `bound` range over
    /// (so every extent is at least 1 and `bound[k]` is a position on axis k).
    fn bound_axis_index(&mut self, x: &str, k: usize, bound: &[String]) -> Expr {
        let i = || Expr::var(&bound[k]);
        let range = |start: Option<Expr>, stop: Option<Expr>, step: Option<i64>| Expr::Range {
            start: start.map(Box::new),
            stop: stop.map(Box::new),
            step: step.map(|s| Box::new(Expr::i64(s))),
        };
        match self.t.below(7) {
            0 => i(),
            1 => range(Some(i()), None, None),
            2 => range(None, Some(i()), Some(-1)),
            3 => range(Some(self.base_expr()), None, Some(2)),
            4 => {
                let extent = Expr::Dim {
                    arg: Box::new(Expr::var(x)),
                    axis: k as u32,
                };
                self.gather_of(None, extent).unwrap_or_else(i)
            }
            5 => range(None, None, Some(-1)),
            _ => range(None, None, None),
        }
    }

    /// An indexing of an array variable (of element type `elem`) that selects an array
    /// and is in bounds by construction; never inside parfor.
    fn selection(&mut self, elem: ScalarType) -> Option<Expr> {
        if self.in_parfor {
            return None;
        }
        let flags = self.slice_flags();
        let (x, indices, flags) = match self.t.below(3) {
            0 => {
                // Under a loop over the array's class: any index form on each axis.
                let (x, binding) = self.indexable(Some(elem))?;
                let GTy::Arr(a) = x.ty else { return None };
                let mut indices: Vec<Expr> = (0..a.ndims as usize)
                    .map(|k| self.bound_axis_index(&x.name, k, &binding.vars))
                    .collect();
                if indices.len() > 1 && self.t.one_in(3) {
                    // Trailing indices left out are full ranges.
                    indices.pop();
                }
                let all_scalar = indices.iter().all(|e| matches!(e, Expr::Var { .. }));
                if all_scalar && indices.len() == a.ndims as usize {
                    // One element: make the last axis a range so that an array is selected.
                    indices.pop();
                    indices.push(self.shape_keeping_range());
                }
                (x.name, indices, flags)
            }
            1 => {
                // Ranges that are always in bounds; with `:flat` over several axes.
                let (x, a) = self.any_array(elem, None)?;
                let flat = a.ndims > 1 && self.t.below(2) == 0;
                let n = if flat { 1 } else { a.ndims };
                let indices = (0..n)
                    .map(|_| match self.t.below(3) {
                        0 => self.shape_keeping_range(),
                        1 => Expr::Range {
                            start: Some(Box::new(self.base_expr())),
                            stop: None,
                            step: Some(Box::new(Expr::i64(*self.t.pick(&[2, 3])))),
                        },
                        _ => Expr::Range {
                            start: None,
                            stop: None,
                            step: Some(Box::new(Expr::i64(-2))),
                        },
                    })
                    .collect();
                (
                    x,
                    indices,
                    IndexFlags {
                        flatten: flat,
                        ..flags
                    },
                )
            }
            _ => {
                // A vector gathered or masked by arrays of its own class.
                let (x, a) = self.any_array(elem, Some(1))?;
                let ix = if self.t.below(2) == 0 {
                    self.class_gather(&x, a)
                } else {
                    None
                };
                let ix = match ix {
                    Some(g) => g,
                    None => self.class_mask(a)?,
                };
                (x, vec![ix], flags)
            }
        };
        Some(Expr::Index {
            array: Box::new(Expr::var(x)),
            indices,
            flags,
        })
    }

    /// `(sum SEL)` of a selection (see [`Self::selection`]).
    fn selection_sum(&mut self, elem: ScalarType) -> Option<Expr> {
        let sel = self.selection(elem)?;
        Some(Expr::Reduce {
            op: ReduceOp::Sum,
            arg: Box::new(sel),
            axis: None,
            acc: None,
        })
    }

    /// `(set SEL v)`: a scalar stored at every selected position, or an array of the
    /// target's class stored through a selection of the target's own shape (reversed
    /// axes, or a gather by a vector of its class); never inside parfor.
    fn set_selection(&mut self) -> Option<Stmt> {
        if self.in_parfor {
            return None;
        }
        let (target, value) = if self.t.below(2) == 0 {
            let elem = *self.t.pick(&[ScalarType::F64, ScalarType::I64]);
            let sel = self.selection(elem)?;
            (sel, self.expr(GTy::scalar(elem), self.cfg.max_expr_depth))
        } else {
            let arrays: Vec<(String, ArrTy)> = self
                .vars
                .iter()
                .filter_map(|v| match v.ty {
                    GTy::Arr(a) => Some((v.name.clone(), a)),
                    _ => None,
                })
                .collect();
            if arrays.is_empty() {
                return None;
            }
            let (x, a) = self.t.pick(&arrays).clone();
            let gather = if a.ndims == 1 && self.t.below(2) == 0 {
                self.class_gather(&x, a)
            } else {
                None
            };
            let indices = match gather {
                Some(g) => vec![g],
                None => (0..a.ndims).map(|_| self.shape_keeping_range()).collect(),
            };
            let flags = self.slice_flags();
            let value = self.array_expr(a, self.cfg.max_expr_depth);
            (
                Expr::Index {
                    array: Box::new(Expr::var(x)),
                    indices,
                    flags,
                },
                value,
            )
        };
        let Expr::Index {
            array,
            indices,
            flags,
        } = target
        else {
            return None;
        };
        let Expr::Var { name } = *array else {
            return None;
        };
        self.pure_scalar = false;
        Some(Stmt::new(StmtKind::Assign {
            targets: vec![LValue::Index {
                array: name,
                indices,
                flags,
            }],
            value,
        }))
    }

    /// `(map g ...)` of an earlier pure scalar function with result type `a.elem`.
    fn map_expr(&mut self, a: ArrTy, depth: u32) -> Option<Expr> {
        let target = GTy::scalar(a.elem);
        let callees: Vec<Sig> = self
            .callees
            .iter()
            .filter(|s| {
                s.results == [target]
                    && !s.params.is_empty()
                    && s.pure_scalar
                    && !s.tuple_result
                    && s.params
                        .iter()
                        .all(|p| matches!(p, GTy::I64 | GTy::F64 | GTy::Bool | GTy::C128))
            })
            .cloned()
            .collect();
        if callees.is_empty() {
            return None;
        }
        let callee = self.t.pick(&callees).clone();
        // The first argument is an array with the result's layout; the others arrays of
        // the same class or scalars.
        let mut args = Vec::new();
        for (k, p) in callee.params.iter().enumerate() {
            let elem = p.elem().unwrap_or(ScalarType::F64);
            if elem == ScalarType::Bool {
                if k == 0 {
                    return None;
                }
                args.push(self.bool_expr(0));
            } else if k == 0 || self.t.below(2) == 0 {
                let layout = if k == 0 { a.layout } else { Layout::Row };
                args.push(self.array_expr(ArrTy { elem, layout, ..a }, depth));
            } else {
                args.push(self.expr(*p, depth));
            }
        }
        Some(Expr::Map {
            func: callee.name,
            args,
        })
    }

    /// A call of an earlier function with one array result of this type.
    fn array_call(&mut self, a: ArrTy) -> Option<Expr> {
        let callees: Vec<Sig> = self
            .callees
            .iter()
            .filter(|s| matches!(s.results.as_slice(), [GTy::Arr(r)] if r.elem == a.elem && r.ndims == a.ndims && r.layout == a.layout))
            .cloned()
            .collect();
        if callees.is_empty() {
            return None;
        }
        let callee = self.t.pick(&callees).clone();
        let GTy::Arr(r) = callee.results[0] else {
            return None;
        };
        let mapping = self.class_mapping(&callee, Some((r.class, a.class)))?;
        if !callee.pure_scalar {
            self.pure_scalar = false;
        }
        Some(self.call_expr(&callee, &mapping))
    }
}

fn map_ty(ty: GTy, mapping: &[usize]) -> GTy {
    match ty {
        GTy::Arr(a) => GTy::Arr(ArrTy {
            class: mapping[a.class],
            ..a
        }),
        other => other,
    }
}

fn assign(name: &str, value: Expr) -> Stmt {
    Stmt::new(StmtKind::Assign {
        targets: vec![LValue::Var {
            name: name.to_string(),
        }],
        value,
    })
}

/// Arguments for a function: arrays of one class get equal dims.
pub fn arguments(sig: &Sig, tape: &[u32]) -> Vec<Value> {
    let mut t = Tape { tape, pos: 0 };
    let mut dims: Vec<Vec<usize>> = Vec::new();
    for &rank in &sig.class_ranks {
        let mut shape = Vec::new();
        for _ in 0..rank {
            let d = if rank == 1 {
                1 + t.below(6)
            } else {
                1 + t.below(4)
            };
            // Now and then an empty array.
            shape.push(if t.one_in(10) { 0 } else { d });
        }
        dims.push(shape);
    }
    sig.params
        .iter()
        .map(|p| match *p {
            GTy::Bool => Value::Scalar(Scalar::Bool(t.below(2) == 1)),
            GTy::I64 => Value::Scalar(Scalar::I64(int_value(&mut t))),
            GTy::F64 => Value::Scalar(Scalar::F64(float_value(&mut t))),
            GTy::C128 => Value::Scalar(complex_value(&mut t)),
            GTy::Arr(a) => {
                let shape = dims[a.class].clone();
                let n: usize = shape.iter().product();
                let elems: Vec<Scalar> = (0..n)
                    .map(|_| match a.elem {
                        ScalarType::I64 => Scalar::I64(int_value(&mut t)),
                        ScalarType::C128 => complex_value(&mut t),
                        _ => Scalar::F64(float_value(&mut t)),
                    })
                    .collect();
                Value::Array(Array::from_logical(
                    ArrayType::new(a.elem, a.ndims, a.layout),
                    shape,
                    &elems,
                ))
            }
        })
        .collect()
}

fn int_value(t: &mut Tape) -> i64 {
    match t.below(8) {
        7 => *t.pick(&[i64::MAX, i64::MIN, 1 << 40]),
        _ => t.below(41) as i64 - 20,
    }
}

fn complex_value(t: &mut Tape) -> Scalar {
    let re = float_value(t);
    let im = float_value(t);
    Scalar::C128(num_complex::Complex64::new(re, im))
}

fn float_value(t: &mut Tape) -> f64 {
    match t.below(8) {
        7 => *t.pick(&[f64::NAN, f64::INFINITY, -0.0, 1e-310, 1e308]),
        _ => (t.below(2001) as f64 - 1000.0) / 64.0,
    }
}
