//! Lowering: one specialization's HIR to a VRIR function, computing every expression's
//! type on the way (inference runs this same code without keeping the output, see
//! `infer`). The engine part of the rules lives here: statements, assignment with value
//! semantics, indexing, loops, short-circuit logic, calls between source functions and
//! how run-time errors are raised; numeric semantics and the library come from the
//! language's rule table (`rules::Language`).

use super::hir::{Arg, BinOp, Expr, ExprKind, FunctionDef, Line};
use super::infer::{Program, RetTy, Round};
use super::lists::{describe_expr, global_var, is_marked, leaf_name, syntactic_leaf, Place, Val};
use super::matching;
use super::rules::{Marker, SeqParts};
use super::types::{join, join_assigned, wider, AnyTy, ListTy, Ty};
use crate::runtime::error::{ErrorKind, VrError};
use crate::vrir::{self, Block, IndexFlags, LValue, Literal, Local, Param, ScalarType, Stmt, StmtKind, Type};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Why lowering stopped: a type not known yet (inference tries again next round) or a
/// real diagnostic.
#[derive(Debug)]
pub enum LErr {
    NotYet,
    Fail(VrError),
}

impl From<VrError> for LErr {
    fn from(e: VrError) -> LErr {
        LErr::Fail(e)
    }
}

pub type LResult<T> = Result<T, LErr>;

/// A lowered expression and its type.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub expr: vrir::Expr,
    pub ty: Ty,
}

impl Lowered {
    pub fn new(expr: vrir::Expr, ty: Ty) -> Lowered {
        Lowered { expr, ty }
    }
}

/// The prefix of helper functions that raise run-time errors; `explain_error` turns
/// their failures back into the message the rule table gives.
pub const ERROR_HELPER_PREFIX: &str = "_error_";

/// The reason prefix of a user's own error (R `stop("message")`): the message follows,
/// hex-encoded, since a helper's name may hold only letters, digits and `_`.
pub const STOP_REASON: &str = "stop_";

/// Messages longer than this are cut (with "..."): the name of a function carries them.
const STOP_MESSAGE_MAX: usize = 200;

/// The reason `raise_if` gets for a user's error with this message.
pub fn stop_reason(message: &str) -> String {
    let mut text: String = message.chars().take(STOP_MESSAGE_MAX).collect();
    if text.len() < message.len() {
        text.push_str("...");
    }
    let hex: String = text.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{STOP_REASON}{hex}")
}

/// The message `stop_reason` encoded (None when `hex` is not such an encoding).
pub fn decode_stop_message(hex: &str) -> Option<String> {
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len()).step_by(2).map(|k| u8::from_str_radix(hex.get(k..k + 2)?, 16).ok()).collect();
    String::from_utf8(bytes?).ok()
}

/// Turn a run-time error raised through `Lowerer::raise_if` into the language's
/// message, naming the source function and line; other errors pass through.
pub fn explain_error(lang: &dyn super::rules::Language, e: VrError) -> VrError {
    let Some(f) = e.function.as_deref() else { return e };
    let Some(rest) = f.strip_prefix(ERROR_HELPER_PREFIX) else { return e };
    let Some((reason, func_line)) = rest.split_once("__") else { return e };
    let func = func_line.rsplit_once("__").map_or(func_line, |(f, _)| f);
    let kind = if lang.host_has_answer(reason) { ErrorKind::Unsupported } else { ErrorKind::Runtime };
    let counts = decode_counts(&e.message);
    let mut out = VrError::new(kind, lang.error_message(reason, counts)).with_function(func);
    out.line = e.line;
    // An index check of `growth` or `subscript` keeps the fields of an index error.
    if let (Some((name, beyond)), Some((i, len))) = (super::growth::decode_index_reason(reason), counts) {
        out.variable = Some(name);
        out.index = Some(if beyond { i } else { -i });
        out.bound = Some(len);
        out.dim = Some(0);
    }
    out
}

/// Counts a helper of `Lowerer::raise_if_counts` can carry exactly: each below 2^26,
/// larger ones are shown as `COUNT_MAX` (so the encoded value stays below 2^53).
pub const COUNT_MAX: i64 = (1 << 26) - 1;

/// Base of the encoding: any encoded value is below -2^32, outside every backend's i32
/// range, so the cast that carries it always fails.
const COUNT_BASE: i64 = 1 << 32;

/// The two counts a failing `raise_if_counts` helper encoded in the value of its invalid
/// cast (`invalid cast: f64 value -4563402754 does not fit i32`, also inside a message
/// that hosts received as text, such as the C API's `runtime error in ...: invalid
/// cast: ...`); None for other errors.
pub fn decode_counts(message: &str) -> Option<(i64, i64)> {
    const CAST: &str = "invalid cast: f64 value ";
    let rest = &message[message.find(CAST)? + CAST.len()..];
    let value: f64 = rest.split_whitespace().next()?.parse().ok()?;
    if !(value.fract() == 0.0 && value <= -(COUNT_BASE as f64) && value > -9.0e15) {
        return None;
    }
    let code = -(value as i64) - COUNT_BASE;
    Some((code >> 26, code & COUNT_MAX))
}

pub struct Lowerer<'p> {
    pub prog: &'p mut Program,
    spec: usize,
    final_pass: bool,
    /// The source function's name, for diagnostics (for a lifted function, the
    /// top-level function around it, whose lines the host counts).
    pub fname: String,
    vrir_fname: String,
    /// The program function being lowered (`Spec::source_name`): the scope calls are
    /// resolved in.
    scope: String,
    /// Whose name run-time error helpers carry (`explain_error` reports it): the VRIR
    /// function, or for a lifted function the top-level one around it.
    helper_owner: String,
    /// Values bound to names no source can spell, visible to reads (`bind_value`): how
    /// the apply family hands an element to the function it calls.
    bound: HashMap<String, Lowered>,
    def: FunctionDef,
    /// Variable types visible to reads: the previous round's joins and the parameters.
    pub(super) vars: BTreeMap<String, Ty>,
    /// Joins of this round's assignments.
    recorded: BTreeMap<String, Ty>,
    /// List variables visible to reads (as `vars`), and this round's list assignments.
    pub(super) lists: BTreeMap<String, ListTy>,
    pub(super) recorded_lists: BTreeMap<String, ListTy>,
    /// Parameters and globals whose values compiled code cannot hold, with what they
    /// are: reading one is a diagnostic.
    pub(super) opaque: BTreeMap<String, String>,
    /// Join of this round's returns.
    ret: RetTy,
    /// Whether the function returns a list, and its names (None until a return is seen;
    /// `Some(None)`: scalars or arrays).
    pub(super) ret_list: Option<Option<ListTy>>,
    /// Statements that must run before the expression being lowered.
    pub(super) pre: Vec<Stmt>,
    /// The loops around the statement being lowered: `break` and `next` need one.
    loop_depth: u32,
    temps: Vec<Local>,
    counter: u32,
    /// Variables written through an index somewhere in the function (list elements as
    /// `list$name`; a list marks all its elements).
    written: HashSet<String>,
    /// Variables assigned as a whole (`x <- v`, `l$a <- v`) anywhere in the body.
    rebound: HashSet<String>,
    /// Vectors that grow by assignment (`growth`): the specialization's, those the
    /// source shows and those this round finds.
    pub(super) growable: BTreeSet<String>,
    /// Variables assigned the language's NULL (`x <- c()`) somewhere.
    pub(super) nullable: HashSet<String>,
    /// How many parallel loops enclose the statement being lowered.
    pub(super) parallel_depth: u32,
    /// Line of the statement being lowered.
    pub line: Line,
}

impl<'p> Lowerer<'p> {
    pub fn new(prog: &'p mut Program, spec: usize, final_pass: bool) -> Lowerer<'p> {
        let s = prog.specs[spec].clone();
        let def = prog.defs[&s.source_name].clone();
        let mut written = HashSet::new();
        collect_written(&def.body, &mut written);
        let mut rebound = HashSet::new();
        collect_rebound(&def.body, &mut rebound);
        let (fname, helper_owner) = match prog.closures.lifted.get(&s.source_name) {
            Some(l) => (l.outer.clone(), prog.lang.vrir_name(&l.outer)),
            None => (s.source_name.clone(), s.vrir_name.clone()),
        };
        let (mut growable, nullable) = super::growth::from_source(prog.lang, &def.body, &written);
        growable.extend(s.growable.iter().cloned());
        let mut vars = s.vars.clone();
        let mut lists = s.lists.clone();
        let mut opaque = BTreeMap::new();
        let formals = def.params.iter().zip(&s.args).filter_map(|(p, a)| Some((p.name.clone(), a.as_ref()?)));
        let globals = prog.globals.iter().map(|(g, t)| (global_var(g), t));
        for (name, a) in formals.chain(globals) {
            match a {
                AnyTy::Value(t) => {
                    // A length-one argument (a scalar) that the function writes through an
                    // index or appends to is a vector of length one (R has no scalars).
                    if t.rank == 0 && prog.lang.scalars_grow() && (written.contains(&name) || growable.contains(&name)) {
                        growable.insert(name.clone());
                    }
                    let t = if growable.contains(&name) && t.rank == 0 { t.with_rank(1) } else { *t };
                    let join_var = if prog.lang.scalars_are_vectors() { join_assigned } else { join };
                    let t = vars.get(&name).and_then(|v| join_var(*v, t)).unwrap_or(t);
                    vars.insert(name, t);
                }
                AnyTy::List(l) => {
                    for (path, t) in l.leaves() {
                        let leaf = leaf_name(&name, &path);
                        let t = vars.get(&leaf).and_then(|v| join(*v, t)).unwrap_or(t);
                        vars.insert(leaf, t);
                    }
                    lists.insert(name, l.clone());
                }
                AnyTy::Opaque(what) => {
                    opaque.insert(name, what.clone());
                }
            }
        }
        Lowerer {
            prog,
            spec,
            final_pass,
            fname,
            vrir_fname: s.vrir_name.clone(),
            scope: s.source_name.clone(),
            helper_owner,
            bound: HashMap::new(),
            def,
            recorded: vars.clone(),
            vars,
            recorded_lists: lists.clone(),
            lists,
            opaque,
            ret: None,
            ret_list: None,
            pre: Vec::new(),
            loop_depth: 0,
            temps: Vec::new(),
            counter: 0,
            written,
            rebound,
            growable,
            nullable,
            parallel_depth: 0,
            line: 0,
        }
    }

    /// Was `name` assigned (as a scalar or array) in this round so far?
    pub(super) fn recorded_contains(&self, name: &str) -> bool {
        self.recorded.contains_key(name)
    }

    /// This round's findings: the return type, the variable types, the lists and the
    /// vectors that grow by assignment.
    pub fn finish_round(self) -> Round {
        Round { ret: self.ret, ret_list: self.ret_list.flatten(), vars: self.recorded, lists: self.recorded_lists, growable: self.growable }
    }

    /// The pending pre-statements (a builtin that builds a loop body collects its
    /// checks by swapping them out).
    pub fn pre_mut(&mut self) -> &mut Vec<Stmt> {
        &mut self.pre
    }

    /// The line where the function's body starts.
    pub fn def_line(&self) -> Line {
        self.def.body.line
    }

    pub fn final_pass(&self) -> bool {
        self.final_pass
    }

    /// The type of argument `name` exactly as the caller gave it, when the function never
    /// reassigns or widens it (None otherwise, and for a parameter left to its default).
    pub fn argument_type(&self, name: &str) -> Option<Ty> {
        let i = self.def.params.iter().position(|p| p.name == name)?;
        let AnyTy::Value(t) = self.prog.specs[self.spec].args.get(i).cloned().flatten()? else { return None };
        (!self.rebound.contains(name) && self.vars.get(name).is_some_and(|v| v.elem == t.elem)).then_some(t)
    }

    /// The type the caller gave argument `name` (None: not a parameter, or left to its
    /// default).
    pub fn given_argument(&self, name: &str) -> Option<Ty> {
        let i = self.def.params.iter().position(|p| p.name == name)?;
        match self.prog.specs[self.spec].args.get(i).cloned().flatten()? {
            AnyTy::Value(t) => Some(t),
            _ => None,
        }
    }

    /// The names of the function's formal parameters, in order.
    pub(super) fn def_params(&self) -> Vec<String> {
        self.def.params.iter().map(|p| p.name.clone()).collect()
    }

    pub fn layout(&self) -> vrir::Layout {
        self.prog.lang.layout()
    }

    // ----- diagnostics -----

    /// An error naming the construct, the line and the reason.
    pub fn diag(&self, kind: ErrorKind, construct: &str, line: Line, reason: &str) -> LErr {
        LErr::Fail(
            VrError::new(kind, format!("{construct} (line {line}): {reason}"))
                .with_function(&self.fname)
                .with_line(Some(line)),
        )
    }

    pub fn unsupported(&self, construct: &str, line: Line, reason: &str) -> LErr {
        self.diag(ErrorKind::Unsupported, construct, line, reason)
    }

    // ----- building blocks for the rule table -----

    /// Append a statement to run before the current expression.
    pub fn emit(&mut self, kind: StmtKind) {
        self.pre.push(Stmt { kind, line: Some(self.line) });
    }

    /// A fresh temporary of type `ty`.
    pub fn temp(&mut self, ty: &Type) -> String {
        self.counter += 1;
        let name = format!("_t{}", self.counter);
        self.temps.push(Local { name: name.clone(), ty: ty.clone() });
        name
    }

    /// The value in a temporary, unless it is already a variable or a constant (so
    /// that it can be read twice without being computed twice).
    pub fn hoist(&mut self, l: Lowered) -> Lowered {
        if matches!(l.expr, vrir::Expr::Var { .. } | vrir::Expr::Const { .. }) {
            return l;
        }
        let t = self.temp(&l.ty.vrir(self.layout()));
        self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: l.expr });
        Lowered::new(vrir::Expr::var(t), l.ty)
    }

    /// Convert to another element type (same rank).
    pub fn cast(&self, l: Lowered, elem: ScalarType) -> Lowered {
        if l.ty.elem == elem {
            return l;
        }
        let ty = l.ty.with_elem(elem);
        // Fold conversions of constants that are exact (`1.0` as an index is `1`).
        if let vrir::Expr::Const { value } = l.expr {
            let folded = match (value, elem) {
                (Literal::F64(v), ScalarType::I64) if v.fract() == 0.0 && v.abs() < 9.0e15 => Some(Literal::I64(v as i64)),
                (Literal::F64(v), ScalarType::I32) if v.fract() == 0.0 && v.abs() <= i32::MAX as f64 => Some(Literal::I32(v as i32)),
                (Literal::I32(v), ScalarType::I64) => Some(Literal::I64(v as i64)),
                (Literal::I32(v), ScalarType::F64) => Some(Literal::F64(v as f64)),
                (Literal::I64(v), ScalarType::F64) if v.abs() < (1 << 53) => Some(Literal::F64(v as f64)),
                (Literal::Bool(b), ScalarType::I32) => Some(Literal::I32(b as i32)),
                (Literal::Bool(b), ScalarType::I64) => Some(Literal::I64(b as i64)),
                (Literal::Bool(b), ScalarType::F64) => Some(Literal::F64(b as i32 as f64)),
                (Literal::F64(v), ScalarType::C128) => Some(Literal::C128([v, 0.0])),
                (Literal::I32(v), ScalarType::C128) => Some(Literal::C128([v as f64, 0.0])),
                _ => None,
            };
            if let Some(v) = folded {
                return Lowered::new(vrir::Expr::lit(v), ty);
            }
        }
        Lowered::new(vrir::Expr::Cast { to: ty.vrir(self.layout()), arg: Box::new(l.expr) }, ty)
    }

    /// Raise the run-time error `reason` (a name the rule table's `error_message`
    /// knows) when `cond` holds. VRIR has no error statement, so the error comes from a
    /// helper function whose name carries the reason and the function; `explain_error`
    /// turns it into the language's message.
    pub fn raise_if(&mut self, cond: vrir::Expr, reason: &str) {
        // One helper per reason, function and line: the helper's statement carries the
        // line, which the error keeps.
        let helper = format!("{ERROR_HELPER_PREFIX}{reason}__{}__{}", self.helper_owner, self.line);
        let line = self.line;
        // Only the final pass's helpers are kept: an inference round may lower with
        // types that do not last (and its statements are dropped).
        let helpers = if self.final_pass { &mut self.prog.helpers } else { &mut BTreeMap::new() };
        helpers.entry(helper.clone()).or_insert_with(|| vrir::Function {
            name: helper.clone(),
            params: vec![],
            results: vec![Type::I32],
            locals: vec![],
            // An invalid cast: the one run-time error every backend raises on demand.
            body: vec![Stmt {
                kind: StmtKind::Return { values: vec![vrir::Expr::Cast { to: Type::I32, arg: Box::new(vrir::Expr::f64(f64::NAN)) }] },
                line: Some(line),
            }],
            line: None,
        });
        let call = Stmt { kind: StmtKind::Expr { expr: vrir::Expr::Call { func: helper, args: vec![] } }, line: Some(self.line) };
        self.emit(StmtKind::If { cond, then: Block { on_gpu: false, stmts: vec![call] }, els: None });
    }

    /// `raise_if` for an error whose message names two run-time counts (R: the lengths
    /// of operands that do not recycle). The helper takes the counts and fails with an
    /// invalid cast whose value encodes them (VRIR errors carry no other run-time
    /// value); `explain_error` decodes them. Counts above `COUNT_MAX` show as it.
    pub fn raise_if_counts(&mut self, cond: vrir::Expr, reason: &str, counts: [vrir::Expr; 2]) {
        let helper = format!("{ERROR_HELPER_PREFIX}{reason}__{}__{}", self.helper_owner, self.line);
        let line = self.line;
        let helpers = if self.final_pass { &mut self.prog.helpers } else { &mut BTreeMap::new() };
        helpers.entry(helper.clone()).or_insert_with(|| {
            let clamped = |n: &str| vrir::Expr::Lib { func: vrir::LibFn::Min, args: vec![vrir::Expr::var(n), vrir::Expr::i64(COUNT_MAX)] };
            // -(2^32 + a * 2^26 + b), exact in f64.
            let code = vrir::Expr::binary(
                vrir::BinOp::Add,
                vrir::Expr::binary(vrir::BinOp::Add, vrir::Expr::i64(COUNT_BASE), vrir::Expr::binary(vrir::BinOp::Mul, clamped("a"), vrir::Expr::i64(1 << 26))),
                clamped("b"),
            );
            let value = vrir::Expr::Unary { op: vrir::UnOp::Neg, arg: Box::new(vrir::Expr::Cast { to: Type::F64, arg: Box::new(code) }) };
            let param = |n: &str| Param { name: n.into(), ty: Type::I64, restrict: false };
            vrir::Function {
                name: helper.clone(),
                params: vec![param("a"), param("b")],
                results: vec![Type::I32],
                locals: vec![],
                body: vec![Stmt { kind: StmtKind::Return { values: vec![vrir::Expr::Cast { to: Type::I32, arg: Box::new(value) }] }, line: Some(line) }],
                line: None,
            }
        });
        let call = Stmt { kind: StmtKind::Expr { expr: vrir::Expr::Call { func: helper, args: counts.into() } }, line: Some(self.line) };
        self.emit(StmtKind::If { cond, then: Block { on_gpu: false, stmts: vec![call] }, els: None });
    }

    // ----- functions -----

    pub fn lower_function(&mut self) -> LResult<vrir::Function> {
        let lang = self.prog.lang;
        let spec = self.prog.specs[self.spec].clone();
        // A lifted function is only ever called from compiled code, whose values have
        // passed the entry's checks already.
        let check_entry = !self.prog.closures.lifted.contains_key(&self.scope);
        let mut body = Vec::new();
        let mut params = Vec::new();
        self.line = self.def.body.line;
        // Parameters: each scalar or array argument is one VRIR parameter, a list one per
        // element (in `ListTy::leaves` order), then the globals the same way.
        let globals: Vec<(String, AnyTy)> = self.prog.globals.iter().map(|(g, t)| (global_var(g), t.clone())).collect();
        let formals = self.def.params.iter().zip(&spec.args).filter_map(|(p, a)| Some((p.name.clone(), a.clone()?)));
        for (name, a) in formals.collect::<Vec<_>>().into_iter().chain(globals) {
            match a {
                AnyTy::Value(t) => {
                    self.bind_param(&name, t, check_entry, &mut params)?;
                    self.set_length_after_assign(&name);
                }
                AnyTy::List(l) => {
                    for (path, t) in l.leaves() {
                        self.bind_param(&leaf_name(&name, &path), t, check_entry, &mut params)?;
                    }
                }
                AnyTy::Opaque(_) => {}
            }
        }
        self.start_lengths(&spec.args);
        body.append(&mut self.pre);
        for p in self.def.params.clone().iter().zip(&spec.args).filter(|(_, a)| a.is_none()).map(|(p, _)| p) {
            // Without a default (a language with optional arguments, MATLAB) the
            // parameter is simply never assigned.
            let Some(default) = p.default.clone() else { continue };
            let assign = Expr::new(
                ExprKind::Assign { target: Box::new(Expr::new(ExprKind::Var(p.name.clone()), default.line)), value: Box::new(default.clone()) },
                default.line,
            );
            self.stmt_tolerant(&assign, false, &mut body)?;
        }
        let def_body = self.def.body.clone();
        self.stmt_tolerant(&def_body, true, &mut body)?;
        let results = self.final_ret()?.iter().map(|t| t.vrir(self.layout())).collect();
        self.check_distinct_vrir_names()?;
        let mut locals: Vec<Local> = Vec::new();
        let param_names: HashSet<&str> = params.iter().map(|p| p.name.as_str()).collect();
        for (name, t) in &self.vars {
            let n = lang.vrir_name(name);
            if !param_names.contains(n.as_str()) {
                locals.push(Local { name: n, ty: t.vrir(self.layout()) });
            }
        }
        locals.extend(self.length_locals());
        locals.extend(self.temps.iter().cloned());
        Ok(vrir::Function { name: self.vrir_fname.clone(), params, results, locals, body, line: Some(self.def.body.line) })
    }

    /// One VRIR parameter for the variable `name` (a formal, a list's element, a global)
    /// whose argument has type `t`.
    fn bind_param(&mut self, name: &str, t: Ty, check_entry: bool, params: &mut Vec<Param>) -> LResult<()> {
        let lang = self.prog.lang;
        let var_ty = self.vars[name];
        let vname = lang.vrir_name(name);
        let copied = lang.arguments_by_value() && t.rank > 0 && is_marked(&self.written, name);
        // Parameters are never assigned in VRIR we emit (backends may rely on it): an
        // array parameter the function rebinds (`u <- v`) becomes a local too.
        let rebound = t.rank > 0 && (is_marked(&self.rebound, name) || self.is_growable(name));
        if var_ty == t && !copied && !rebound {
            params.push(Param { name: vname.clone(), ty: t.vrir(self.layout()), restrict: false });
            if check_entry {
                lang.entry_check(self, &vname, t);
            }
        } else if var_ty == t {
            // Written in the function: the caller's array is copied first (into a
            // local, so that parameters are never assigned).
            let pname = format!("_arg_{vname}");
            params.push(Param { name: pname.clone(), ty: t.vrir(self.layout()), restrict: false });
            if check_entry {
                lang.entry_check(self, &pname, t);
            }
            let value = if copied {
                vrir::Expr::Lib { func: vrir::LibFn::Copy, args: vec![vrir::Expr::var(&pname)] }
            } else {
                vrir::Expr::var(&pname)
            };
            self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: vname }], value });
        } else if !lang.arguments_by_value() && t.rank > 0 {
            // By reference, a converted copy would hide the function's writes from
            // the caller.
            return Err(self.unsupported(
                &format!("argument `{name}`"),
                self.def.body.line,
                &format!("the function assigns it a {var_ty} where the caller passes a {t}: a compiled array argument keeps its type (use another variable)"),
            ));
        } else {
            // The function assigns the parameter a wider type: take the argument
            // under another name and convert it.
            let pname = format!("_arg_{vname}");
            params.push(Param { name: pname.clone(), ty: t.vrir(self.layout()), restrict: false });
            if check_entry {
                lang.entry_check(self, &pname, t);
            }
            let widened = self.cast(Lowered::new(vrir::Expr::var(&pname), t), var_ty.elem);
            let value = if t.rank > 0 && widened.ty == t {
                vrir::Expr::Lib { func: vrir::LibFn::Copy, args: vec![widened.expr] }
            } else if t.rank == 0 && var_ty.rank > 0 {
                // A length-one argument the function uses as a vector.
                super::growth::vector_of_one(widened, self.layout()).expr
            } else {
                widened.expr
            };
            self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: vname }], value });
        }
        Ok(())
    }

    /// The result type the function is compiled with (known in the final pass).
    fn final_ret(&self) -> LResult<Vec<Ty>> {
        match &self.prog.specs[self.spec].ret {
            Some(r) => Ok(r.clone()),
            None if self.final_pass => Err(LErr::NotYet),
            None => Ok(self.ret.clone().unwrap_or_default()),
        }
    }

    // ----- statements -----

    /// Lower a statement; in inference rounds, a statement whose types are not known
    /// yet is skipped (the next round knows more).
    fn stmt_tolerant(&mut self, e: &Expr, tail: bool, out: &mut Vec<Stmt>) -> LResult<()> {
        match self.stmt(e, tail, out) {
            Err(LErr::NotYet) if !self.final_pass => {
                self.pre.clear();
                Ok(())
            }
            r => r,
        }
    }

    fn block(&mut self, e: &Expr, tail: bool) -> LResult<Vec<Stmt>> {
        let mut out = Vec::new();
        self.stmt_tolerant(e, tail, &mut out)?;
        Ok(out)
    }

    /// Push `kind` after the pending pre-statements.
    fn push(&mut self, out: &mut Vec<Stmt>, kind: StmtKind, line: Line) {
        out.append(&mut self.pre);
        out.push(Stmt { kind, line: Some(line) });
    }

    fn stmt(&mut self, e: &Expr, tail: bool, out: &mut Vec<Stmt>) -> LResult<()> {
        self.line = e.line;
        let line = e.line;
        match &e.kind {
            ExprKind::Block(items) => {
                if items.is_empty() && tail {
                    self.record_return(&[], line)?;
                    self.push(out, StmtKind::Return { values: vec![] }, line);
                }
                for (k, item) in items.iter().enumerate() {
                    self.stmt_tolerant(item, tail && k + 1 == items.len(), out)?;
                }
                Ok(())
            }
            ExprKind::Assign { target, value } if matches!(&value.kind, ExprKind::Assign { target: inner, .. } if matches!(inner.kind, ExprKind::Var(_))) => {
                // R's `a <- b <- v` (also `a = b = v`): the inner assignment, then `a` from
                // the variable it assigned (copied where either is written later, as any
                // `a <- b`).
                let ExprKind::Assign { target: inner, .. } = &value.kind else { unreachable!("matched above") };
                self.stmt(value, false, out)?;
                let chained = Expr::new(ExprKind::Assign { target: target.clone(), value: inner.clone() }, line);
                self.stmt(&chained, tail, out)
            }
            ExprKind::Assign { target, value } if matches!(target.kind, ExprKind::Tuple(_)) => {
                self.tuple_assign(target, value, line, out)?;
                self.void_tail(tail, line, out)
            }
            ExprKind::Assign { target, value } => {
                self.assign(target, value, line, out)?;
                if tail {
                    match &target.kind {
                        ExprKind::Var(_) => match self.any_expr(target)? {
                            Val::One(v) => {
                                self.null_guard(target, &v);
                                self.return_value(vec![v], line, out)?;
                            }
                            Val::List(l) => self.return_list(l, line, out)?,
                        },
                        _ => return Err(self.unsupported("assignment into an index as the function's value", line, "return the variable explicitly")),
                    }
                }
                Ok(())
            }
            ExprKind::MultiAssign { targets, value } => {
                let targets: Vec<Option<&Expr>> = targets.iter().map(Option::as_ref).collect();
                self.assign_several(&targets, value, false, line, out)?;
                self.void_tail(tail, line, out)
            }
            ExprKind::If { cond, then, els } => {
                let c = match self.condition(cond) {
                    Err(LErr::NotYet) if !self.final_pass => {
                        self.pre.clear();
                        vrir::Expr::lit(Literal::Bool(true))
                    }
                    r => r?,
                };
                out.append(&mut self.pre);
                let then_b = self.block(then, tail)?;
                let els_b = match els {
                    Some(e) => Some(self.block(e, tail)?),
                    None if tail => {
                        // R's `if` without `else` is NULL when the condition is false.
                        self.record_return(&[], line)?;
                        Some(vec![Stmt { kind: StmtKind::Return { values: vec![] }, line: Some(line) }])
                    }
                    None => None,
                };
                self.line = line;
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: c,
                        then: Block { on_gpu: false, stmts: then_b },
                        els: els_b.map(|s| Block { on_gpu: false, stmts: s }),
                    },
                    line: Some(line),
                });
                Ok(())
            }
            ExprKind::For { var, seq, body } => {
                self.for_loop(var, seq, body, line, out)?;
                self.void_tail(tail, line, out)
            }
            ExprKind::While { cond, body } => {
                let c = self.condition(cond)?;
                let pre = std::mem::take(&mut self.pre);
                let mut b = self.loop_body(body)?;
                if pre.is_empty() {
                    self.push(out, StmtKind::While { cond: c, body: Block { on_gpu: false, stmts: b } }, line);
                } else {
                    // The condition needs statements: evaluate it at the top of each turn.
                    let mut stmts = pre;
                    stmts.push(Stmt {
                        kind: StmtKind::If {
                            cond: vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(c) },
                            then: Block { on_gpu: false, stmts: vec![Stmt { kind: StmtKind::Break, line: Some(line) }] },
                            els: None,
                        },
                        line: Some(line),
                    });
                    stmts.append(&mut b);
                    self.push(out, StmtKind::While { cond: vrir::Expr::lit(Literal::Bool(true)), body: Block { on_gpu: false, stmts } }, line);
                }
                self.void_tail(tail, line, out)
            }
            ExprKind::Repeat(body) => {
                let b = self.loop_body(body)?;
                self.push(out, StmtKind::While { cond: vrir::Expr::lit(Literal::Bool(true)), body: Block { on_gpu: false, stmts: b } }, line);
                self.void_tail(tail, line, out)
            }
            ExprKind::Break | ExprKind::Next if self.loop_depth == 0 => {
                // R: "no loop for break/next, jumping to top level"; Julia: "syntax: break
                // or continue outside loop"; VRIR has no such statement (found by fuzzing).
                Err(self.unsupported("`break` or `next` outside a loop", line, "the host raises an error there"))
            }
            ExprKind::Break => {
                self.push(out, StmtKind::Break, line);
                Ok(())
            }
            ExprKind::Next => {
                self.push(out, StmtKind::Continue, line);
                Ok(())
            }
            ExprKind::Call { func, args } if !self.is_user_function(func) && self.prog.lang.marker(func).is_some() => {
                match self.prog.lang.marker(func) {
                    Some(Marker::Return) => {
                        let v = match args.as_slice() {
                            [] => vec![],
                            [a] if a.name.is_none() => match self.any_expr(&a.value)? {
                                Val::One(v) => {
                                    self.null_guard(&a.value, &v);
                                    vec![v]
                                }
                                Val::List(l) => return self.return_list(l, line, out),
                            },
                            _ => return Err(self.unsupported(&format!("`{func}` with these arguments"), line, "it takes one value")),
                        };
                        self.return_value(v, line, out)
                    }
                    Some(Marker::List) => match self.any_expr(e)? {
                        Val::List(l) if tail => self.return_list(l, line, out),
                        _ => {
                            out.append(&mut self.pre);
                            Ok(())
                        }
                    },
                    Some(Marker::Results) => {
                        // Names (`.vr_results(a = x)`) are the caller's business: the
                        // values leave in the order written.
                        let mut values = Vec::with_capacity(args.len());
                        for a in args {
                            values.push(self.expr(&a.value)?);
                        }
                        self.return_value(values, line, out)
                    }
                    Some(Marker::Gpu) => {
                        let [a] = args.as_slice() else {
                            return Err(self.unsupported(&format!("`{func}`"), line, "it takes one block `{ ... }`"));
                        };
                        let stmts = self.block(&a.value, false)?;
                        self.push(out, StmtKind::Block(Block { on_gpu: true, stmts }), line);
                        self.void_tail(tail, line, out)
                    }
                    Some(Marker::Stop) => {
                        if tail {
                            return Err(self.unsupported(&format!("`{func}(...)` as the function's value"), line, "compiled code raises errors only from statements that a value follows"));
                        }
                        let message = self.stop_message(func, args, line)?;
                        self.raise_if(vrir::Expr::lit(Literal::Bool(true)), &stop_reason(&message));
                        out.append(&mut self.pre);
                        Ok(())
                    }
                    Some(Marker::Check) => {
                        // Its checks run; its value (NULL) is the function's in tail position.
                        let lang = self.prog.lang;
                        match lang.builtin(self, func, args, line) {
                            Some(r) => drop(r?),
                            None => return Err(self.unsupported(&format!("call to `{func}`"), line, "not compiled")),
                        }
                        out.append(&mut self.pre);
                        self.void_tail(tail, line, out)
                    }
                    _ => {
                        let v = self.expr(e)?;
                        self.value_stmt(v, tail, line, out)
                    }
                }
            }
            ExprKind::LocalFunction { name, .. } => {
                if tail {
                    return Err(self.unsupported(&format!("function `{name}` as the function's value"), line, "a closure that escapes (returned or stored) does not compile"));
                }
                // The definition itself does nothing: calls reach the lifted function.
                Ok(())
            }
            ExprKind::Call { func, args } if self.is_user_function(func) && !tail => {
                // A call for its effect (or its errors): a void call is fine here.
                let (call, _) = self.user_call(func, args, line)?;
                self.push(out, StmtKind::Expr { expr: call }, line);
                Ok(())
            }
            _ if tail => match self.any_expr(e)? {
                Val::One(v) => {
                    self.null_guard(e, &v);
                    self.value_stmt(v, tail, line, out)
                }
                Val::List(l) => self.return_list(l, line, out),
            },
            _ => {
                let v = self.expr(e)?;
                self.value_stmt(v, tail, line, out)
            }
        }
    }

    /// An expression statement: the function's value in tail position, else evaluated
    /// for its run-time errors only when it calls something.
    fn value_stmt(&mut self, v: Lowered, tail: bool, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        if tail {
            return self.return_value(vec![v], line, out);
        }
        out.append(&mut self.pre);
        Ok(())
    }

    /// After a loop in tail position the function's value is NULL.
    fn void_tail(&mut self, tail: bool, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        if tail {
            self.return_value(vec![], line, out)?;
        }
        Ok(())
    }

    /// Join the types of one more `return` into the function's result types: the same
    /// number of values everywhere, each joined like a variable.
    fn record_return(&mut self, ts: &[Ty], line: Line) -> LResult<()> {
        let joined = match &self.ret {
            None => ts.to_vec(),
            Some(prev) if prev.len() == ts.len() => {
                let mut joined = Vec::with_capacity(ts.len());
                for (a, b) in prev.iter().zip(ts) {
                    if a.class != b.class {
                        return Err(self.diag(ErrorKind::Unsupported, "return value", line, &format!("the function returns a {a} elsewhere and a {b} here; a compiled result has one class")));
                    }
                    if !self.prog.lang.elements_meet(a.elem, b.elem) {
                        return Err(self.diag(ErrorKind::Unsupported, "return value", line, &format!("the function returns {} values elsewhere and {} values here", a.elem, b.elem)));
                    }
                    match join(*a, *b) {
                        Some(j) => joined.push(j),
                        None => return Err(self.diag(ErrorKind::Type, "return value", line, &format!("the function returns a {a} elsewhere and a {b} here; a compiled function has one result type"))),
                    }
                }
                joined
            }
            Some(prev) => {
                let show = |ts: &[Ty]| match ts {
                    [] => "NULL".to_string(),
                    [t] => t.to_string(),
                    ts => format!("{} values", ts.len()),
                };
                return Err(self.diag(ErrorKind::Unsupported, "return value", line, &format!("the function returns {} elsewhere and {} here", show(prev), show(ts))));
            }
        };
        self.ret = Some(joined);
        Ok(())
    }

    /// `return` of these values (none: R's `NULL`), each converted to the element type
    /// the function's result has after every return is joined.
    fn return_value(&mut self, vs: Vec<Lowered>, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        self.note_return_list(None, line)?;
        self.return_values(vs, line, out)
    }

    /// `return_value` without the note that the function returns no list.
    pub(super) fn return_values(&mut self, vs: Vec<Lowered>, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let types: Vec<Ty> = vs.iter().map(|v| v.ty).collect();
        self.record_return(&types, line)?;
        let results = self.final_ret()?;
        let values = if results.len() == vs.len() {
            vs.into_iter().zip(&results).map(|(v, r)| self.cast(v, r.elem).expr).collect()
        } else {
            // An inference round that has not settled: the types are rechecked when it has.
            vs.into_iter().map(|v| v.expr).collect()
        };
        self.push(out, StmtKind::Return { values }, line);
        Ok(())
    }

    pub(super) fn record(&mut self, name: &str, t: Ty, line: Line) -> LResult<()> {
        // Where a value of length one is a vector (R), a scalar and a vector assigned to
        // one variable make a vector.
        let join_var = if self.prog.lang.scalars_are_vectors() { join_assigned } else { join };
        self.record_joined(name, t, line, join_var)
    }

    /// `record` with the join the variable's values meet on (a source variable's, which
    /// lets a scalar be a vector of one element, or the strict one of a variable the
    /// lowering makes).
    fn record_joined(&mut self, name: &str, t: Ty, line: Line, join: fn(Ty, Ty) -> Option<Ty>) -> LResult<()> {
        if let Some(l) = self.recorded_lists.get(name) {
            return Err(self.diag(
                ErrorKind::Type,
                &format!("assignment to `{name}`"),
                line,
                &format!("`{name}` is a {l} elsewhere and a {t} here; a compiled variable keeps one type (use another name)"),
            ));
        }
        // A variable written through an index is a vector (R has no scalars): a scalar
        // assigned to it is a vector of length one, and it may grow.
        if t.rank == 0 && self.written.contains(name) && self.prog.lang.scalars_grow() {
            self.growable.insert(name.to_string());
        }
        let promote = |t: Ty| if t.rank == 0 { t.with_rank(1) } else { t };
        let growable = self.growable.contains(name);
        let t = if growable { promote(t) } else { t };
        let j = match self.recorded.get(name).map(|p| if growable { promote(*p) } else { *p }) {
            None => t,
            Some(prev) if prev.class != t.class => {
                return Err(self.diag(
                    ErrorKind::Unsupported,
                    &format!("assignment to `{name}`"),
                    line,
                    &format!("`{name}` is a {prev} elsewhere and a {t} here; a compiled variable keeps one class (MATLAB's class would depend on the path taken)"),
                ))
            }
            Some(prev) if !self.prog.lang.elements_meet(prev.elem, t.elem) => {
                return Err(self.diag(
                    ErrorKind::Unsupported,
                    &format!("assignment to `{name}`"),
                    line,
                    &format!("`{name}` holds {} values elsewhere and {} values here; a compiled variable keeps one type, which one of them cannot hold exactly", prev.elem, t.elem),
                ))
            }
            Some(prev) => match join(prev, t) {
                Some(j) => j,
                None => {
                    return Err(self.diag(
                        ErrorKind::Type,
                        &format!("assignment to `{name}`"),
                        line,
                        &format!("`{name}` is a {prev} elsewhere and a {t} here; a compiled variable keeps one type (use another name)"),
                    ))
                }
            },
        };
        self.recorded.insert(name.to_string(), j);
        Ok(())
    }

    /// The type a variable is compiled with (NotYet while unknown).
    pub(super) fn var_type(&self, name: &str, line: Line) -> LResult<Ty> {
        match self.vars.get(name) {
            Some(t) => Ok(*t),
            // Unsupported (not a type error): the host may know a global of this name.
            None if self.final_pass => Err(self.diag(
                ErrorKind::Unsupported,
                &format!("variable `{name}`"),
                line,
                "it is read before any assignment gives it a value (free variables must be constants of the source file)",
            )),
            None => Err(LErr::NotYet),
        }
    }

    fn read_var(&mut self, name: &str, line: Line) -> LResult<Lowered> {
        if let Some(v) = self.bound.get(name) {
            return Ok(v.clone());
        }
        let Some(var) = self.resolve(name) else {
            if let Some(c) = self.prog.constants.get(name).cloned() {
                return self.expr(&c);
            }
            if let Some(f) = self.prog.resolve_function(&self.scope, name) {
                return Err(self.unsupported(
                    &format!("{} used as a value", self.display_function(&f)),
                    line,
                    "a function value compiles only as the function argument of sapply, vapply, mapply, Reduce, Filter, outer, apply or unlist(lapply/Map(...)); a closure that escapes (returned or stored) does not",
                ));
            }
            let t = self.var_type(name, line)?;
            return Ok(Lowered::new(vrir::Expr::var(self.prog.lang.vrir_name(name)), t));
        };
        if self.is_list_var(&var) {
            return Err(self.list_as_value(name, line));
        }
        if let Some(what) = self.opaque.get(&var) {
            return Err(self.unsupported(&format!("variable `{name}`"), line, &format!("it is {what}; compiled code reads only double, integer, logical and complex values")));
        }
        let t = self.var_type(&var, line)?;
        if self.is_growable(&var) {
            return Ok(self.growable_value(&var, t));
        }
        Ok(Lowered::new(vrir::Expr::var(self.prog.lang.vrir_name(&var)), t))
    }

    /// Did an assignment `name <- v` of the source write the variable that VRIR calls
    /// `src` through an index somewhere (so that `name` needs a copy of its own)?
    fn source_written(&self, src: &str) -> bool {
        let lang = self.prog.lang;
        self.vars.keys().chain(self.recorded.keys()).any(|n| lang.vrir_name(n) == src && is_marked(&self.written, n))
    }

    pub(super) fn assign(&mut self, target: &Expr, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        match &target.kind {
            ExprKind::Var(name) => {
                if let Some(parts) = self.prog.lang.appended(value, name) {
                    if self.is_growable(name) {
                        return self.append(name, parts, line, out);
                    }
                }
                let lang = self.prog.lang;
                let v = if lang.is_null(value) {
                    // `x <- c()`: an empty vector of the narrowest type, which the
                    // variable's other assignments widen.
                    let empty = vrir::Expr::Alloc { init: vrir::AllocInit::Zeros, ty: vrir::ArrayType::new(ScalarType::Bool, 1, self.layout()), dims: vec![vrir::Expr::i64(0)] };
                    Lowered::new(empty, Ty::array(ScalarType::Bool, 1))
                } else {
                    let known = self.vars.get(name).map(|t| t.elem);
                    match lang.na_filled(self, value, known) {
                        Some(v) => v?,
                        None => match self.any_expr(value)? {
                            Val::One(v) => v,
                            Val::List(l) => return self.assign_list(name, l, line, out),
                        },
                    }
                };
                self.assign_var(name, v, line, out)
            }
            ExprKind::Field { target: base, name: key } => {
                if let Some(done) = self.assign_computed_then_key(base, &ExprKind::Str(key.clone()), value, line, out)? {
                    return Ok(done);
                }
                let place = self.list_place(base, line)?;
                let place = self.select_place(place, &ExprKind::Str(key.clone()), line)?;
                self.assign_place(place, value, line, out)
            }
            ExprKind::Index { target: arr, indices, double } => {
                // `l[[i]][["a"]] <- v` with a computed `i`.
                if let (true, [Some(ix)]) = (*double, indices.as_slice()) {
                    if !self.is_computed_key(&ix.kind) {
                        if let Some(done) = self.assign_computed_then_key(arr, &ix.kind, value, line, out)? {
                            return Ok(done);
                        }
                    }
                }
                let name = match &arr.kind {
                    ExprKind::Var(name) if !self.resolve(name).is_some_and(|v| self.is_list_var(&v)) => name.clone(),
                    ExprKind::Var(_) | ExprKind::Field { .. } | ExprKind::Index { double: true, .. } => match self.place(arr, line)? {
                        Place::Value(leaf) => leaf,
                        Place::List(list, lt) => {
                            // `l[["a"]] <- v`, `l[[2]] <- v`: an element of a list.
                            let [Some(ix)] = indices.as_slice() else {
                                return Err(self.unsupported("assignment into a list", line, "select one element with `[[`"));
                            };
                            if !*double {
                                return Err(self.unsupported("assignment `x[i] <- v` into a list", line, "use `x[[i]] <- v` to set one element"));
                            }
                            if self.is_computed_key(&ix.kind) {
                                return self.assign_computed(&list, &lt, ix, value, line, out);
                            }
                            let place = self.select_place(Place::List(list, lt), &ix.kind, line)?;
                            return self.assign_place(place, value, line, out);
                        }
                    },
                    _ => return Err(self.unsupported("assignment into an index of an expression", line, "only `x[i] <- v` with a variable `x` compiles")),
                };
                self.index_assign(&name, indices, *double, value, line, out)
            }
            ExprKind::Call { func, .. } => Err(self.unsupported(&format!("replacement function `{func}<-`"), line, "only assignment to a variable or an index compiles")),
            ExprKind::Unsupported(what) => Err(self.unsupported(what, line, "not compilable")),
            _ => Err(self.unsupported("assignment target", line, "only a variable or an index can be assigned")),
        }
    }

    /// A loop's body: `break` and `next` inside it leave this loop.
    fn loop_body(&mut self, body: &Expr) -> LResult<Vec<Stmt>> {
        self.loop_depth += 1;
        let lowered = self.block(body, false);
        self.loop_depth -= 1;
        lowered
    }

    /// How many of its parameters the call being compiled passes (MATLAB's `nargin`).
    pub fn given_arguments(&self) -> usize {
        self.prog.specs[self.spec].args.iter().filter(|a| a.is_some()).count()
    }

    /// `name <- v` for a scalar or array `v` (`name` may be a list's element).
    pub(super) fn assign_var(&mut self, name: &str, v: Lowered, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        self.record(name, v.ty, line)?;
        let declared = self.var_type(name, line).unwrap_or(v.ty);
        let v = if declared.rank > 0 && v.ty.rank == 0 { super::growth::vector_of_one(v, self.layout()) } else { v };
        let needs_copy = self.prog.lang.arguments_by_value()
            && v.ty.rank > 0
            && match &v.expr {
                vrir::Expr::Var { name: src } => is_marked(&self.written, name) || self.source_written(src),
                vrir::Expr::Call { .. } => is_marked(&self.written, name),
                _ => false,
            };
        let mut v = self.cast(v, declared.elem);
        if needs_copy {
            v.expr = self.prog.lang.copy_array(v.expr, v.ty.vrir(self.layout()));
        }
        let kind = StmtKind::Assign { targets: vec![LValue::Var { name: self.prog.lang.vrir_name(name) }], value: v.expr };
        self.push(out, kind, line);
        self.set_length_after_assign(name);
        out.append(&mut self.pre);
        Ok(())
    }

    /// `name[indices] <- value` for the array variable `name` (or a list's element).
    fn index_assign(&mut self, name: &str, indices: &[Option<Expr>], double: bool, value: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        let lang = self.prog.lang;
        if let Some(done) = lang.index_assign(self, name, indices, value, line) {
            done?;
            out.append(&mut self.pre);
            return Ok(());
        }
        let at = self.var_type(name, line)?;
        let v = match self.prog.lang.missing_as(self, value, at.elem) {
            Some(v) => v?,
            None => self.expr(value)?,
        };
        if at.rank == 0 {
            // `record` makes a variable written through an index a vector; the
            // next round has it so.
            self.growable.insert(name.to_string());
            self.record(name, Ty::array(wider(at.elem, v.ty.elem), 1), line)?;
            return Err(if self.final_pass { self.unsupported(&format!("assignment into an index of `{name}`"), line, &format!("`{name}` is a {at}")) } else { LErr::NotYet });
        }
        // Storing a wider element widens the whole array (R's coercion), unless
        // the language converts the element to the array's type (Julia).
        let converts = self.prog.lang.stores_convert();
        self.record(name, if converts { at } else { at.with_elem(wider(at.elem, v.ty.elem)) }, line)?;
        if self.is_growable(name) {
            if let Some(done) = self.grow_and_store(name, at, indices, v.clone(), line, out) {
                return done;
            }
            // Any other selection works on the vector's current elements.
            self.fit_length(name)?;
        }
        let target = Lowered::new(vrir::Expr::var(self.prog.lang.vrir_name(name)), at);
        let (idx, sel_rank, flatten) = self.indices(&target, indices, double, line)?;
        if v.ty.rank > 0 && v.ty.rank != sel_rank {
            return Err(self.unsupported(
                &format!("assignment into `{name}[...]`"),
                line,
                &format!("a {} into a selection of rank {sel_rank}: the value must be a scalar or have the selection's shape", v.ty),
            ));
        }
        let v = if converts { self.prog.lang.convert_stored(self, v, at.elem) } else { self.cast(v, at.elem) };
        let kind = StmtKind::Assign {
            targets: vec![LValue::Index { array: self.prog.lang.vrir_name(name), indices: idx, flags: IndexFlags { flatten, ..IndexFlags::default() } }],
            value: v.expr,
        };
        self.push(out, kind, line);
        Ok(())
    }

    fn for_loop(&mut self, var: &str, seq: &Expr, body: &Expr, line: Line, out: &mut Vec<Stmt>) -> LResult<()> {
        // `for (v in list(...))`: the list, made once into a hidden list variable, then a
        // loop over that (`frontend::lists`).
        let hidden;
        let seq = match &seq.kind {
            ExprKind::Call { func, .. } if !self.is_user_function(func) && self.prog.lang.marker(func) == Some(Marker::List) => {
                let Val::List(l) = self.any_expr(seq)? else { unreachable!("list(...) is a list") };
                let name = format!("@in_{var}_{line}");
                self.assign_list(&name, l, line, out)?;
                hidden = Expr::new(ExprKind::Var(name), line);
                &hidden
            }
            _ => seq,
        };
        if let Some((k_loop, k_body)) = self.list_loop(var, seq, body, line)? {
            return match k_body {
                Some(b) => self.for_loop(&k_loop, &Expr::new(ExprKind::Binary(BinOp::Colon, Box::new(Expr::new(ExprKind::Int(1), line)), Box::new(Expr::new(ExprKind::Int(b.0), line))), line), &b.1, line, out),
                None => Ok(()),
            };
        }
        let lang = self.prog.lang;
        let mut parallel = false;
        let mut seq_expr = seq;
        if let ExprKind::Call { func, args } = &seq.kind {
            if !self.is_user_function(func) && lang.marker(func) == Some(Marker::ParallelRange) {
                parallel = true;
                let [a] = args.as_slice() else {
                    return Err(self.unsupported(&format!("`{func}`"), line, "it takes one count"));
                };
                seq_expr = &a.value;
            }
        }
        self.counter += 1;
        let counter = format!("_i{}", self.counter);
        self.temps.push(Local { name: counter.clone(), ty: Type::I64 });
        let mut empty_value: Option<Lowered> = None;
        let (domain, mut prologue_value, elem_ty) = if parallel {
            let n = self.expr(seq_expr)?;
            if n.ty.rank != 0 {
                return Err(self.unsupported("parallel loop", line, "`prange(n)` takes a count"));
            }
            let n = lang.index_value(self, n, line)?;
            let d = vrir::Expr::Range { start: Some(Box::new(vrir::Expr::i64(1))), stop: Some(Box::new(n)), step: None };
            (d, vrir::Expr::var(&counter), Ty::scalar(lang.parallel_index_type()))
        } else if let Some(parts) = lang.seq(self, seq_expr) {
            let p = parts?;
            let d = vrir::Expr::Range { start: Some(Box::new(p.start)), stop: Some(Box::new(p.stop)), step: Some(Box::new(p.step)) };
            (d, vrir::Expr::var(&counter), Ty::scalar(p.elem))
        } else {
            // A loop over a vector's elements: evaluate it once, then index it.
            let v = self.expr(seq_expr)?;
            if v.ty.rank == 0 {
                let d = vrir::Expr::Range { start: Some(Box::new(vrir::Expr::i64(1))), stop: Some(Box::new(vrir::Expr::i64(1))), step: None };
                let h = self.hoist(v);
                (d, h.expr, h.ty.with_rank(0))
            } else {
                let t = self.temp(&v.ty.vrir(self.layout()));
                // R iterates over a copy; a by-reference language (Julia) reads the
                // array itself at each turn, so the body's writes are seen.
                let copy = matches!(v.expr, vrir::Expr::Var { .. }) && lang.arguments_by_value();
                let value = if copy { vrir::Expr::Lib { func: vrir::LibFn::Copy, args: vec![v.expr] } } else { v.expr };
                self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value });
                let array = Lowered::new(vrir::Expr::var(&t), v.ty);
                if let Some(own) = lang.array_loop(self, seq_expr, &array, &counter, line) {
                    let own = own?;
                    let d = vrir::Expr::Range { start: Some(Box::new(vrir::Expr::i64(1))), stop: Some(Box::new(own.turns)), step: None };
                    empty_value = own.when_empty.map(|e| Lowered::new(e, v.ty));
                    (d, own.value, own.ty)
                } else {
                    let d = vrir::Expr::Range {
                        start: Some(Box::new(vrir::Expr::i64(1))),
                        stop: Some(Box::new(vrir::Expr::Lib { func: vrir::LibFn::Len, args: vec![vrir::Expr::var(&t)] })),
                        step: None,
                    };
                    let elem = vrir::Expr::Index {
                        array: Box::new(vrir::Expr::var(&t)),
                        indices: vec![vrir::Expr::var(&counter)],
                        flags: IndexFlags { flatten: v.ty.rank > 1, ..IndexFlags::default() },
                    };
                    (d, elem, v.ty.with_rank(0))
                }
            }
        };
        self.record(var, elem_ty, line)?;
        let declared = self.var_type(var, line).unwrap_or(elem_ty);
        if let Some(empty) = empty_value {
            // No turn: the variable takes the value the language gives it.
            self.record(var, empty.ty, line)?;
            let value = self.cast(empty, declared.elem).expr;
            let turns = match &domain {
                vrir::Expr::Range { stop: Some(n), .. } => (**n).clone(),
                _ => unreachable!("an array loop's domain is 1:turns"),
            };
            let assign = Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: lang.vrir_name(var) }], value }, line: Some(line) };
            self.emit(StmtKind::If { cond: vrir::Expr::binary(vrir::BinOp::Eq, turns, vrir::Expr::i64(0)), then: Block { on_gpu: false, stmts: vec![assign] }, els: None });
        }
        if matches!(prologue_value, vrir::Expr::Var { ref name } if *name == counter) {
            prologue_value = self.cast(Lowered::new(prologue_value, Ty::scalar(ScalarType::I64)), declared.elem).expr;
        } else {
            prologue_value = self.cast(Lowered::new(prologue_value, elem_ty), declared.elem).expr;
        }
        if declared.rank > 0 && elem_ty.rank == 0 {
            // The loop variable is assigned vectors elsewhere: each element is a vector of one.
            prologue_value = super::growth::vector_of_one(Lowered::new(prologue_value, Ty::scalar(declared.elem)), self.layout()).expr;
        }
        out.append(&mut self.pre);
        let mut stmts = vec![Stmt {
            kind: StmtKind::Assign { targets: vec![LValue::Var { name: lang.vrir_name(var) }], value: prologue_value },
            line: Some(line),
        }];
        self.parallel_depth += u32::from(parallel);
        let lowered = self.loop_body(body);
        self.parallel_depth -= u32::from(parallel);
        stmts.extend(lowered?);
        let body = Block { on_gpu: false, stmts };
        let kind = if parallel {
            StmtKind::Parfor { vars: vec![counter], domain, body }
        } else {
            StmtKind::For { vars: vec![counter], domain, body }
        };
        self.line = line;
        self.push(out, kind, line);
        Ok(())
    }

    // ----- expressions -----

    pub fn expr(&mut self, e: &Expr) -> LResult<Lowered> {
        let line = e.line;
        let lang = self.prog.lang;
        match &e.kind {
            ExprKind::Double(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Imaginary(_) | ExprKind::Missing(_) => lang.literal(self, e),
            ExprKind::Null => Err(self.unsupported("NULL", line, "NULL is only allowed as a function's value")),
            ExprKind::Str(_) => Err(self.unsupported("string", line, "strings do not compile")),
            ExprKind::Var(name) => self.read_var(name, line),
            ExprKind::Unary(op, a) => {
                let a = self.expr(a)?;
                lang.unary(self, *op, a, line)
            }
            ExprKind::Binary(op @ (BinOp::AndAnd | BinOp::OrOr), a, b) => self.short_circuit(*op, a, b, line),
            ExprKind::Binary(BinOp::Colon, ..) => {
                let parts = lang.seq(self, e).expect("the rule table recognizes `:`")?;
                self.materialize(parts)
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = self.operands(a, b)?;
                lang.binary(self, *op, a, b, line)
            }
            ExprKind::Call { func, args } => self.call(func, args, line),
            ExprKind::CallExpr { callee, args } => match &callee.kind {
                // `(function(x) ...)(v)`: the anonymous function was lifted.
                ExprKind::Var(f) if self.prog.closures.lifted.contains_key(f) => self.call(f, args, line),
                _ => Err(self.unsupported("call of a computed function", line, "only functions called by name compile")),
            },
            ExprKind::LocalFunction { name, .. } => Err(self.unsupported(&format!("definition of function `{name}` used as a value"), line, "a closure that escapes does not compile")),
            ExprKind::Index { target, indices, double } => {
                if let Some(read) = lang.index_read(self, target, indices, line) {
                    return read;
                }
                if self.may_be_list(target) {
                    return match self.any_expr(e)? {
                        Val::One(v) => Ok(v),
                        Val::List(_) => Err(self.list_as_value(&describe_expr(e), line)),
                    };
                }
                if let ExprKind::Var(name) = &target.kind {
                    if self.is_growable(name) {
                        if let Some(read) = self.growable_element(name, indices, line) {
                            return read;
                        }
                    }
                }
                let t = self.expr(target)?;
                self.index_read(target, t, indices, *double, line)
            }
            ExprKind::Field { .. } => match self.any_expr(e)? {
                Val::One(v) => Ok(v),
                Val::List(_) => Err(self.list_as_value(&describe_expr(e), line)),
            },
            ExprKind::Function(_) => Err(self.unsupported("function definition inside a function", line, "closures do not compile; define the function at top level")),
            ExprKind::Block(items) => {
                // `{ s1; s2; v }` as a value: the statements run first.
                let Some((last, init)) = items.split_last() else {
                    return Err(self.unsupported("empty block `{}` used as a value", line, "its value is NULL"));
                };
                let mut buf = Vec::new();
                for item in init {
                    self.stmt(item, false, &mut buf)?;
                }
                self.pre.append(&mut buf);
                self.expr(last)
            }
            ExprKind::If { cond, then, els } => {
                let Some(els) = els else {
                    return Err(self.unsupported("`if` without `else` used as a value", line, "its value is NULL when the condition is false"));
                };
                let c = self.condition(cond)?;
                let outer = std::mem::take(&mut self.pre);
                let a = self.expr(then);
                let mut pa = std::mem::take(&mut self.pre);
                let b = self.expr(els);
                let mut pb = std::mem::replace(&mut self.pre, outer);
                let (a, b) = (a?, b?);
                let Some(ty) = join(a.ty, b.ty) else {
                    return Err(self.diag(ErrorKind::Type, "`if` used as a value", line, &format!("one branch is a {} and the other a {}", a.ty, b.ty)));
                };
                let t = self.temp(&ty.vrir(self.layout()));
                let set = |name: &str, v: vrir::Expr| Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: name.to_string() }], value: v }, line: Some(line) };
                pa.push(set(&t, self.cast(a, ty.elem).expr));
                pb.push(set(&t, self.cast(b, ty.elem).expr));
                self.line = line;
                self.emit(StmtKind::If { cond: c, then: Block { on_gpu: false, stmts: pa }, els: Some(Block { on_gpu: false, stmts: pb }) });
                Ok(Lowered::new(vrir::Expr::var(t), ty))
            }
            ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::Repeat(_) => Err(self.unsupported("loop used as a value", line, "a loop's value is NULL")),
            ExprKind::Break | ExprKind::Next => Err(self.unsupported("`break`/`next` used as a value", line, "use it as a statement")),
            ExprKind::Assign { .. } | ExprKind::MultiAssign { .. } => Err(self.unsupported("assignment used as a value", line, "assign in a statement of its own")),
            ExprKind::Tuple(_) => Err(self.unsupported("tuple used as a value", line, "tuples compile as a multiple assignment (`a, b = b, a`) or as the values a function returns")),
            ExprKind::Unsupported(what) => Err(self.unsupported(what, line, "not compilable")),
        }
    }

    /// The operands of a binary operator, in order; a missing-value literal takes the
    /// other operand's element type (R: `x + NA` is a double NA when `x` is double).
    fn operands(&mut self, a: &Expr, b: &Expr) -> LResult<(Lowered, Lowered)> {
        let lang = self.prog.lang;
        if lang.missing_as(self, b, ScalarType::Bool).is_some() && lang.missing_as(self, a, ScalarType::Bool).is_none() {
            let a = self.expr(a)?;
            let b = lang.missing_as(self, b, a.ty.elem).expect("checked above")?;
            return Ok((a, b));
        }
        let b_value = |lw: &mut Self| lw.expr(b);
        if lang.missing_as(self, a, ScalarType::Bool).is_some() && lang.missing_as(self, b, ScalarType::Bool).is_none() {
            let b = b_value(self)?;
            let a = lang.missing_as(self, a, b.ty.elem).expect("checked above")?;
            return Ok((a, b));
        }
        let a = self.expr(a)?;
        Ok((a, b_value(self)?))
    }

    /// A VRIR bool scalar for `e` used as a condition.
    pub fn condition(&mut self, e: &Expr) -> LResult<vrir::Expr> {
        if let ExprKind::Binary(op @ (BinOp::AndAnd | BinOp::OrOr), a, b) = &e.kind {
            return Ok(self.short_circuit(*op, a, b, e.line)?.expr);
        }
        let v = self.expr(e)?;
        self.prog.lang.condition(self, v, e.line)
    }

    /// `a && b`, `a || b`: `b`'s statements (and errors) only when its value matters.
    fn short_circuit(&mut self, op: BinOp, a: &Expr, b: &Expr, line: Line) -> LResult<Lowered> {
        let ca = self.condition(a)?;
        let outer = std::mem::take(&mut self.pre);
        let cb = self.condition(b);
        let inner = std::mem::replace(&mut self.pre, outer);
        let cb = cb?;
        let bool_ty = Ty::scalar(ScalarType::Bool);
        let vop = if op == BinOp::AndAnd { vrir::BinOp::And } else { vrir::BinOp::Or };
        if inner.is_empty() {
            return Ok(Lowered::new(vrir::Expr::binary(vop, ca, cb), bool_ty));
        }
        let t = self.temp(&Type::BOOL);
        self.emit(StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: ca });
        let mut then = inner;
        then.push(Stmt { kind: StmtKind::Assign { targets: vec![LValue::Var { name: t.clone() }], value: cb }, line: Some(line) });
        let guard = if op == BinOp::AndAnd { vrir::Expr::var(&t) } else { vrir::Expr::Unary { op: vrir::UnOp::Not, arg: Box::new(vrir::Expr::var(&t)) } };
        self.emit(StmtKind::If { cond: guard, then: Block { on_gpu: false, stmts: then }, els: None });
        Ok(Lowered::new(vrir::Expr::var(t), bool_ty))
    }

    /// A sequence as a vector: allocated and filled by a loop.
    pub fn materialize(&mut self, p: SeqParts) -> LResult<Lowered> {
        let ty = Ty::array(p.elem, 1);
        let start = self.hoist(Lowered::new(p.start, Ty::scalar(ScalarType::I64)));
        let step = self.hoist(Lowered::new(p.step, Ty::scalar(ScalarType::I64)));
        // Length: (stop - start) / step + 1, at least 0.
        let span = vrir::Expr::binary(vrir::BinOp::Add, vrir::Expr::binary(vrir::BinOp::Div, vrir::Expr::binary(vrir::BinOp::Sub, p.stop, start.expr.clone()), step.expr.clone()), vrir::Expr::i64(1));
        let n = self.hoist(Lowered::new(vrir::Expr::Lib { func: vrir::LibFn::Max, args: vec![span, vrir::Expr::i64(0)] }, Ty::scalar(ScalarType::I64)));
        let out = self.temp(&ty.vrir(self.layout()));
        self.emit(StmtKind::Alloc { var: out.clone(), dims: vec![n.expr.clone()] });
        self.counter += 1;
        let k = format!("_i{}", self.counter);
        self.temps.push(Local { name: k.clone(), ty: Type::I64 });
        let value = vrir::Expr::binary(vrir::BinOp::Add, start.expr, vrir::Expr::binary(vrir::BinOp::Mul, vrir::Expr::binary(vrir::BinOp::Sub, vrir::Expr::var(&k), vrir::Expr::i64(1)), step.expr));
        let value = self.cast(Lowered::new(value, Ty::scalar(ScalarType::I64)), p.elem).expr;
        let body = Stmt { kind: StmtKind::Assign { targets: vec![LValue::Index { array: out.clone(), indices: vec![vrir::Expr::var(&k)], flags: IndexFlags::default() }], value }, line: Some(self.line) };
        self.emit(StmtKind::For {
            vars: vec![k],
            domain: vrir::Expr::Range { start: Some(Box::new(vrir::Expr::i64(1))), stop: Some(Box::new(n.expr)), step: None },
            body: Block { on_gpu: false, stmts: vec![body] },
        });
        Ok(Lowered::new(vrir::Expr::var(out), ty))
    }

    /// `t[indices]` (`t[[i]]` when `double`) for `target` lowered as the scalar or array
    /// `t`.
    pub(super) fn index_read(&mut self, target: &Expr, t: Lowered, indices: &[Option<Expr>], double: bool, line: Line) -> LResult<Lowered> {
        let t = if t.ty.rank == 0 {
            // R has no scalars: a length-one value indexed (`x[1]`, `x[[i]]`).
            let name = match &target.kind {
                ExprKind::Var(n) => n.clone(),
                _ => "value".to_string(),
            };
            match self.index_scalar(t, &name, indices, line)? {
                Ok(element) => return Ok(element),
                Err(as_vector) => as_vector,
            }
        } else if indices.iter().flatten().any(|e| self.prog.lang.is_exclusion(e)) {
            self.hoist(t)
        } else {
            t
        };
        let (idx, rank, flatten) = self.indices(&t, indices, double, line)?;
        let read = Lowered::new(
            vrir::Expr::Index { array: Box::new(t.expr), indices: idx, flags: IndexFlags { flatten, ..IndexFlags::default() } },
            t.ty.with_rank(rank),
        );
        if rank >= 2 && self.prog.lang.drops_unit_dims() {
            let read = self.hoist(read);
            let mut any_unit: Option<vrir::Expr> = None;
            for k in 0..rank {
                let unit = vrir::Expr::binary(vrir::BinOp::Eq, vrir::Expr::Dim { arg: Box::new(read.expr.clone()), axis: k }, vrir::Expr::i64(1));
                any_unit = Some(match any_unit {
                    None => unit,
                    Some(a) => vrir::Expr::binary(vrir::BinOp::Or, a, unit),
                });
            }
            self.raise_if(any_unit.expect("rank >= 2"), "dimension_dropped");
            return Ok(read);
        }
        Ok(read)
    }

    /// Lower the indices of `x[...]` for an array of type `at`: the VRIR indices, the
    /// rank of the result and whether the access is flat (one index into a matrix).
    pub(super) fn indices(&mut self, target: &Lowered, indices: &[Option<Expr>], double: bool, line: Line) -> LResult<(Vec<vrir::Expr>, u32, bool)> {
        let lang = self.prog.lang;
        let at = target.ty;
        if indices.len() != 1 && indices.len() as u32 != at.rank {
            return Err(self.unsupported("indexing", line, &format!("{} subscripts for a {at}", indices.len())));
        }
        let flatten = indices.len() == 1 && at.rank > 1;
        let mut out = Vec::new();
        let mut rank = 0;
        for (k, ix) in indices.iter().enumerate() {
            match ix {
                None => {
                    out.push(vrir::Expr::Range { start: None, stop: None, step: None });
                    rank += 1;
                }
                Some(e) => {
                    if is_zero_literal(e) && !double && lang.zero_index_selects_nothing() {
                        // R drops index 0: `x[0]` selects nothing.
                        out.push(vrir::Expr::Range { start: Some(Box::new(vrir::Expr::i64(1))), stop: Some(Box::new(vrir::Expr::i64(0))), step: None });
                        rank += 1;
                        continue;
                    }
                    if lang.is_exclusion(e) {
                        if double {
                            return Err(self.unsupported("`[[` with a negative index", line, "`[[` selects one element"));
                        }
                        let extent = if flatten {
                            vrir::Expr::Lib { func: vrir::LibFn::Len, args: vec![target.expr.clone()] }
                        } else {
                            vrir::Expr::Dim { arg: Box::new(target.expr.clone()), axis: k as u32 }
                        };
                        let keep = lang.exclusion(self, e, extent, line).expect("is_exclusion said so")?;
                        out.push(keep);
                        rank += 1;
                        continue;
                    }
                    if let Some(p) = lang.seq(self, e) {
                        let p = p?;
                        out.push(vrir::Expr::Range { start: Some(Box::new(p.start)), stop: Some(Box::new(p.stop)), step: Some(Box::new(p.step)) });
                        rank += 1;
                        continue;
                    }
                    let v = self.expr(e)?;
                    if v.ty.rank == 0 {
                        out.push(lang.index_value(self, v, line)?);
                    } else if v.ty.rank == 1 {
                        out.push(lang.index_array(self, v, line)?);
                        rank += 1;
                    } else {
                        return Err(self.unsupported("indexing by a matrix", line, "index with vectors or scalars"));
                    }
                }
            }
        }
        if double && rank > 0 {
            return Err(self.unsupported("`[[` with a range", line, "`[[` selects one element"));
        }
        Ok((out, rank, flatten))
    }

    // ----- calls -----

    pub fn is_user_function(&self, name: &str) -> bool {
        !self.vars.contains_key(name) && self.prog.resolve_function(&self.scope, name).is_some()
    }

    /// The program function a call of `name` from the function being lowered reaches
    /// (None: a builtin, or nothing).
    pub fn resolve_function(&self, name: &str) -> Option<String> {
        if self.vars.contains_key(name) {
            return None;
        }
        self.prog.resolve_function(&self.scope, name)
    }

    /// Is `name` a variable of the function being lowered (typed yet or not)?
    pub fn has_variable(&self, name: &str) -> bool {
        self.vars.contains_key(name) || self.recorded.contains_key(name) || self.rebound.contains(name) || self.def.params.iter().any(|p| p.name == name)
    }

    /// How messages name a program function: "`f`", or a lifted function's own name.
    pub fn display_function(&self, program_name: &str) -> String {
        match self.prog.closures.lifted.get(program_name) {
            Some(l) => l.display.clone(),
            None => format!("function `{program_name}`"),
        }
    }

    /// Make `v` readable under a name no source can spell (returned); `unbind` ends it.
    pub fn bind_value(&mut self, v: Lowered) -> String {
        self.counter += 1;
        let name = format!("#value{}", self.counter);
        self.bound.insert(name.clone(), v);
        name
    }

    pub fn unbind(&mut self, name: &str) {
        self.bound.remove(name);
    }

    /// The type `e` lowers to, keeping nothing its lowering emits or declares (a rule
    /// table that looks at an argument's type before it lowers the call).
    pub fn probe_type(&mut self, e: &Expr) -> LResult<Ty> {
        let (counter, temps) = (self.counter, self.temps.len());
        let helpers: Vec<String> = self.prog.helpers.keys().cloned().collect();
        let (r, _) = self.in_block(|lw| lw.expr(e));
        self.counter = counter;
        self.temps.truncate(temps);
        // The lowering that keeps its code adds the helpers it needs again.
        self.prog.helpers.retain(|name, _| helpers.contains(name));
        r.map(|l| l.ty)
    }

    /// Lower with `f` into a statement list of its own (a loop body being built): the
    /// statements `f` emits, and its result.
    pub fn in_block<T>(&mut self, f: impl FnOnce(&mut Self) -> LResult<T>) -> (LResult<T>, Vec<Stmt>) {
        let outer = std::mem::take(&mut self.pre);
        let r = f(self);
        let inner = std::mem::replace(&mut self.pre, outer);
        (r, inner)
    }

    /// A variable the lowering itself introduces (`name` must be one no source can
    /// spell, the same in every inference round): record that it holds a `t` here and
    /// get the type it is compiled with (the join over the whole function). Its VRIR
    /// name is `vrir_var_name(name)`.
    pub fn synthetic_var(&mut self, name: &str, t: Ty, line: Line) -> LResult<Ty> {
        self.record_joined(name, t, line, join)?;
        Ok(self.vars.get(name).and_then(|v| join(*v, t)).unwrap_or(t))
    }

    pub fn vrir_var_name(&self, name: &str) -> String {
        self.prog.lang.vrir_name(name)
    }

    fn call(&mut self, func: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
        if self.vars.contains_key(func) {
            return Err(self.unsupported(&format!("call of variable `{func}`"), line, "only functions of the source file and builtins can be called"));
        }
        if let Some(target) = self.prog.resolve_function(&self.scope, func) {
            let (expr, ret) = self.user_call(func, args, line)?;
            if self.list_result_of(&expr).is_some() {
                return Err(self.list_as_value(&format!("{func}(...)"), line));
            }
            return match ret.as_slice() {
                [t] => Ok(Lowered::new(expr, *t)),
                [] => Err(self.unsupported(&format!("value of {}", self.display_function(&target)), line, "the function returns NULL")),
                ts => Err(self.unsupported(&format!("value of {}", self.display_function(&target)), line, &format!("the function returns {} values", ts.len()))),
            };
        }
        if self.prog.lang.is_recall(func) {
            return self.recall(func, args, line);
        }
        if let Some(m) = self.prog.lang.marker(func) {
            if m == Marker::List {
                return Err(self.list_as_value(&format!("{func}(...)"), line));
            }
            return Err(self.unsupported(&format!("`{func}(...)` used as a value"), line, match m {
                Marker::Return => "use `return` as a statement",
                Marker::Gpu => "use it as a statement around a block",
                Marker::ParallelRange => "use it only as a `for` loop's sequence",
                Marker::Stop => "use it as a statement (`if (bad) stop(\"...\")`)",
                Marker::Results => "use it as the statement that leaves the function",
                Marker::Check => "use it as a statement; its value is NULL",
                Marker::Names => "names are strings; compiled code reads them only as a loop's sequence over a list, `for (nm in names(l)) ... l[[nm]]`",
                Marker::List => unreachable!("handled above"),
            }));
        }
        let lang = self.prog.lang;
        match lang.builtin(self, func, args, line) {
            Some(r) => r,
            None => Err(self.unsupported(
                &format!("call to `{func}`"),
                line,
                &format!("`{func}` is neither a function of this source nor a {} function the compiler knows", lang.name()),
            )),
        }
    }

    /// The message of `stop(...)`: its string arguments pasted together, as R does; a
    /// logical `call.` argument only affects R's printing of the call.
    fn stop_message(&self, func: &str, args: &[Arg], line: Line) -> LResult<String> {
        let mut message = String::new();
        for a in args {
            match (&a.name, &a.value.kind) {
                (None, ExprKind::Str(s)) => message.push_str(s),
                (Some(n), ExprKind::Bool(_)) if n == "call." => {}
                _ => return Err(self.unsupported(&format!("`{func}` with an argument that is not a string constant"), line, "compiled errors carry constant messages")),
            }
        }
        Ok(message)
    }

    /// A call of a function of the source: its specialization for these argument
    /// types, created when new; the call expression and its result type.
    /// Arguments are matched to the formals as R does (`matching`); a lifted function's
    /// captured variables follow as further arguments, read here in the caller.
    pub(super) fn user_call(&mut self, func: &str, args: &[Arg], line: Line) -> LResult<(vrir::Expr, Vec<Ty>)> {
        let target = self.prog.resolve_function(&self.scope, func).expect("callers check that `func` is a program function");
        self.call_program_function(&target, func, args, line)
    }

    /// The language's call of the function being lowered itself (R's `Recall(...)`):
    /// a call of this program function, captures included (its own parameters).
    fn recall(&mut self, func: &str, args: &[Arg], line: Line) -> LResult<Lowered> {
        if self.prog.closures.sections.contains_key(&self.scope) {
            return Err(self.unsupported(&format!("`{func}`"), line, "in an outlined section it would call the section"));
        }
        let target = self.scope.clone();
        let shown = self.def_display();
        let (expr, ret) = self.call_program_function(&target, &shown, args, line)?;
        match ret.as_slice() {
            [t] => Ok(Lowered::new(expr, *t)),
            _ => Err(self.unsupported(&format!("`{func}`"), line, "the function does not return one value")),
        }
    }

    /// How a call of the function being lowered names it: its R name, or a lifted
    /// function's own name.
    fn def_display(&self) -> String {
        self.prog.closures.lifted.get(&self.scope).map_or_else(|| self.scope.clone(), |l| l.display.clone())
    }

    /// A call of program function `target` (written `func`): see `user_call`.
    fn call_program_function(&mut self, target: &str, func: &str, args: &[Arg], line: Line) -> LResult<(vrir::Expr, Vec<Ty>)> {
        let target = target.to_string();
        let def = self.prog.defs[&target].clone();
        let lifted = self.prog.closures.lifted.get(&target).cloned();
        let shown = lifted.as_ref().map_or_else(|| format!("`{func}`"), |l| l.display.clone());
        let shown = shown.strip_prefix("function ").map_or(shown.clone(), str::to_string);
        let nformals = lifted.as_ref().map_or(def.params.len(), |l| l.formals);
        let formals: Vec<&str> = def.params[..nformals].iter().map(|p| p.name.as_str()).collect();
        if formals.contains(&matching::DOTS) {
            return Err(self.unsupported(&format!("call to {shown}"), line, "a function with `...` among its formals does not compile"));
        }
        let m = matching::match_args(&formals, args).map_err(|m| self.unsupported(&format!("call to {shown}"), line, &matching::message(&m, args)))?;
        let mut types = Vec::new();
        let mut values = Vec::new();
        for (k, p) in def.params[..nformals].iter().enumerate() {
            match m.get(args, k) {
                Some(a) => match self.any_expr(&a.value)? {
                    Val::One(v) => {
                        types.push(Some(AnyTy::Value(v.ty)));
                        values.push(v.expr);
                    }
                    // A list travels as its elements.
                    Val::List(l) => {
                        values.extend(l.leaves.into_iter().map(|v| v.expr));
                        types.push(Some(AnyTy::List(l.ty)));
                    }
                },
                None if p.default.is_some() || self.prog.lang.optional_arguments() => types.push(None),
                None => return Err(self.unsupported(&format!("call to {shown}"), line, &format!("argument \"{}\" is missing, with no default", p.name))),
            }
        }
        for x in lifted.iter().flat_map(|l| l.captures.iter()) {
            if self.prog.closures.shadowed.contains(&(self.scope.clone(), target.clone(), x.clone())) {
                return Err(self.unsupported(
                    &format!("call to {shown}"),
                    line,
                    &format!("it reads the variable `{x}` of an enclosing function, which this function hides behind a `{x}` of its own (rename one of them)"),
                ));
            }
            // A captured list travels as its elements too.
            match self.any_expr(&Expr::new(ExprKind::Var(x.clone()), line))? {
                Val::One(v) => {
                    types.push(Some(AnyTy::Value(v.ty)));
                    values.push(v.expr);
                }
                Val::List(l) => {
                    values.extend(l.leaves.into_iter().map(|v| v.expr));
                    types.push(Some(AnyTy::List(l.ty)));
                }
            }
        }
        // Every function takes the globals after its own parameters.
        values.extend(self.global_args());
        let idx = self.prog.spec_for(&target, types);
        let name = self.prog.specs[idx].vrir_name.clone();
        match &self.prog.specs[idx].ret {
            None => Err(LErr::NotYet),
            Some(r) => Ok((vrir::Expr::Call { func: name, args: values }, r.clone())),
        }
    }
}

/// A literal index 0 (R `x[0]`).
pub(super) fn is_zero_literal(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Double(v) if v == 0.0) || matches!(e.kind, ExprKind::Int(0))
}

/// Variables assigned as a whole (`x <- v`) anywhere in `e`.
fn collect_rebound(e: &Expr, out: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Assign { target, value } => {
            for t in super::tuples::targets(target) {
                // `x[i] <- v` writes into `x` (`collect_written`), it does not rebind it.
                if matches!(t.kind, ExprKind::Index { double: false, .. }) {
                    continue;
                }
                if let Some(n) = syntactic_leaf(t) {
                    out.insert(n);
                }
            }
            collect_rebound(value, out);
        }
        ExprKind::MultiAssign { targets, .. } => {
            for t in targets.iter().flatten() {
                if let ExprKind::Var(n) = &t.kind {
                    out.insert(n.clone());
                }
            }
        }
        ExprKind::Block(items) => items.iter().for_each(|i| collect_rebound(i, out)),
        ExprKind::If { then, els, .. } => {
            collect_rebound(then, out);
            if let Some(e) = els {
                collect_rebound(e, out);
            }
        }
        ExprKind::For { body, .. } | ExprKind::While { body, .. } | ExprKind::Repeat(body) => collect_rebound(body, out),
        ExprKind::Call { args, .. } => args.iter().for_each(|a| collect_rebound(&a.value, out)),
        _ => {}
    }
}

/// Variables written through an index (`x[i] <- v`) anywhere in `e`.
fn collect_written(e: &Expr, out: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Assign { target, value } => {
            for target in super::tuples::targets(target) {
                if let ExprKind::Index { target: t, .. } = &target.kind {
                    if let Some(n) = syntactic_leaf(t) {
                        out.insert(n);
                    }
                }
            }
            collect_written(value, out);
        }
        ExprKind::MultiAssign { targets, .. } => {
            for t in targets.iter().flatten() {
                if let ExprKind::Index { target: t, .. } = &t.kind {
                    if let ExprKind::Var(n) = &t.kind {
                        out.insert(n.clone());
                    }
                }
            }
        }
        ExprKind::Block(items) => items.iter().for_each(|i| collect_written(i, out)),
        ExprKind::If { then, els, .. } => {
            collect_written(then, out);
            if let Some(e) = els {
                collect_written(e, out);
            }
        }
        ExprKind::For { body, .. } | ExprKind::While { body, .. } | ExprKind::Repeat(body) => collect_written(body, out),
        ExprKind::Call { args, .. } => args.iter().for_each(|a| collect_written(&a.value, out)),
        _ => {}
    }
}
