//! The front-end engine's view of a value's type: an element type and a rank (0 for a
//! scalar), the lattice it joins on at control-flow merges, and the mapping to VRIR
//! types. Element types are VRIR's scalar types; which ones a language uses (R: bool,
//! i32, f64, c128) is the rule table's business.

use crate::vrir::{Layout, ScalarType, Type};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ty {
    pub elem: ScalarType,
    /// 0: a scalar (provably one element); n > 0: an n-dimensional array.
    pub rank: u32,
}

impl Ty {
    pub fn scalar(elem: ScalarType) -> Ty {
        Ty { elem, rank: 0 }
    }
    pub fn array(elem: ScalarType, rank: u32) -> Ty {
        Ty { elem, rank }
    }
    pub fn is_scalar(self) -> bool {
        self.rank == 0
    }
    pub fn with_elem(self, elem: ScalarType) -> Ty {
        Ty { elem, ..self }
    }
    /// The VRIR type of a variable of this type (arrays in the language's layout).
    pub fn vrir(self, layout: Layout) -> Type {
        if self.rank == 0 {
            Type::scalar(self.elem)
        } else {
            Type::array(self.elem, self.rank, layout)
        }
    }
    /// The type of a value handed in as `t`, if it is a scalar or an array.
    pub fn from_vrir(t: &Type) -> Option<Ty> {
        match t {
            Type::Scalar { elem } => Some(Ty::scalar(*elem)),
            Type::Array(a) => Some(Ty::array(a.elem, a.ndims)),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = match self.elem {
            ScalarType::Bool => "logical",
            ScalarType::I32 | ScalarType::I64 => "integer",
            ScalarType::F32 | ScalarType::F64 => "double",
            ScalarType::C64 | ScalarType::C128 => "complex",
        };
        match self.rank {
            0 => write!(f, "{e} scalar"),
            1 => write!(f, "{e} vector"),
            2 => write!(f, "{e} matrix"),
            n => write!(f, "{e} {n}-d array"),
        }
    }
}

/// Position of an element type in the numeric tower bool < integers < floats < complex.
pub fn tower(e: ScalarType) -> u8 {
    match e {
        ScalarType::Bool => 0,
        ScalarType::I32 => 1,
        ScalarType::I64 => 2,
        ScalarType::F32 => 3,
        ScalarType::F64 => 4,
        ScalarType::C64 => 5,
        ScalarType::C128 => 6,
    }
}

/// The wider of two element types.
pub fn wider(a: ScalarType, b: ScalarType) -> ScalarType {
    if tower(a) >= tower(b) {
        a
    } else {
        b
    }
}

/// Join at a control-flow merge: element types widen, ranks must agree (a scalar and an
/// array, or arrays of different ranks, cannot share one compiled variable).
pub fn join(a: Ty, b: Ty) -> Option<Ty> {
    (a.rank == b.rank).then(|| Ty { elem: wider(a.elem, b.elem), rank: a.rank })
}

/// Join of the values assigned to one source variable: as `join`, except that a scalar
/// and a vector make a vector (the language has no scalars: R's `r <- 0` then `r <- r +
/// v[a:b]`), where each scalar assigned becomes a vector of one element. Scalars and
/// matrices or arrays still do not meet (R's `dim` attribute would differ).
pub fn join_assigned(a: Ty, b: Ty) -> Option<Ty> {
    match (a.rank, b.rank) {
        (0, 1) | (1, 0) => Some(Ty { elem: wider(a.elem, b.elem), rank: 1 }),
        _ => join(a, b),
    }
}

/// The type of a value that crosses a function boundary or lives in a variable: a scalar
/// or array, a list of such values (R `list`, a data frame), or a value compiled code
/// cannot hold (a character vector, a function, `NULL`), kept so that a list's length
/// and element positions stay right. A list is no VRIR type: each of its scalar and
/// array elements is a VRIR variable (and parameter) of its own (`lists.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyTy {
    Value(Ty),
    List(ListTy),
    /// What the value is, for the diagnostic when it is read (`a character vector`).
    Opaque(String),
}

/// A list's elements in order, each named or not.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ListTy {
    /// A data frame: a list of columns (read-only in compiled code).
    pub frame: bool,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// None (or empty) for an element without a name.
    pub name: Option<String>,
    pub ty: AnyTy,
}

impl ListTy {
    /// The position of the element `name` selects (R's `$` and `[["name"]]`: the first
    /// exact match).
    pub fn position(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name.as_deref() == Some(name))
    }

    /// The key of element `k` in the names of its variables: its name when it has one
    /// that selects it, else `[[k]]` (1-based).
    pub fn key(&self, k: usize) -> String {
        match self.fields[k].name.as_deref() {
            Some(n) if !n.is_empty() && self.position(n) == Some(k) => n.to_string(),
            _ => format!("[[{}]]", k + 1),
        }
    }

    /// Every scalar and array element, nested lists included, in order (preorder):
    /// its path of keys below the list and its type. This order is the order of the
    /// VRIR parameters (and results) a list becomes.
    pub fn leaves(&self) -> Vec<(Vec<String>, Ty)> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Ty)>) {
        for (k, f) in self.fields.iter().enumerate() {
            path.push(self.key(k));
            match &f.ty {
                AnyTy::Value(t) => out.push((path.clone(), *t)),
                AnyTy::List(l) => l.collect(path, out),
                AnyTy::Opaque(_) => {}
            }
            path.pop();
        }
    }

    /// The same list with every scalar and array element replaced, in `leaves` order.
    pub fn with_leaves(&self, tys: &mut impl Iterator<Item = Ty>) -> ListTy {
        let fields = self
            .fields
            .iter()
            .map(|f| Field {
                name: f.name.clone(),
                ty: match &f.ty {
                    AnyTy::Value(_) => AnyTy::Value(tys.next().expect("one type per leaf")),
                    AnyTy::List(l) => AnyTy::List(l.with_leaves(tys)),
                    AnyTy::Opaque(w) => AnyTy::Opaque(w.clone()),
                },
            })
            .collect();
        ListTy { frame: self.frame, fields }
    }

    /// Do two lists have the same names, nesting and element kinds (element types may
    /// differ: they join like variables)?
    pub fn same_shape(&self, other: &ListTy) -> bool {
        self.frame == other.frame
            && self.fields.len() == other.fields.len()
            && self.fields.iter().zip(&other.fields).all(|(a, b)| {
                a.name == b.name
                    && match (&a.ty, &b.ty) {
                        (AnyTy::Value(x), AnyTy::Value(y)) => x.rank == y.rank,
                        (AnyTy::List(x), AnyTy::List(y)) => x.same_shape(y),
                        (AnyTy::Opaque(x), AnyTy::Opaque(y)) => x == y,
                        _ => false,
                    }
            })
    }
}

impl fmt::Display for ListTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", if self.frame { "data.frame" } else { "list" })?;
        for (k, field) in self.fields.iter().enumerate() {
            if k > 0 {
                write!(f, ", ")?;
            }
            if let Some(n) = field.name.as_deref().filter(|n| !n.is_empty()) {
                write!(f, "{n} = ")?;
            }
            write!(f, "{}", field.ty)?;
        }
        write!(f, ")")
    }
}

impl fmt::Display for AnyTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyTy::Value(t) => write!(f, "{t}"),
            AnyTy::List(l) => write!(f, "{l}"),
            AnyTy::Opaque(w) => write!(f, "{w}"),
        }
    }
}
