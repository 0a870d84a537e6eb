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
    /// A host integer class held in a wider element type (MATLAB's int8 as `i32`):
    /// None for every value whose class is its element type's. It travels with the type
    /// through joins, stores and results, so that an int8 stays an int8 (saturating at
    /// 127, handed back as int8) although VRIR computes it as an i32.
    pub class: Option<IntClass>,
}

/// MATLAB integer classes without a VRIR element type of their own, each stored in one
/// that holds every value exactly (docs/frontend-matlab.md, "Integer classes in VRIR").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntClass {
    Int8,
    Int16,
    Uint8,
    Uint16,
    Uint32,
}

impl IntClass {
    pub const ALL: [IntClass; 5] = [IntClass::Int8, IntClass::Int16, IntClass::Uint8, IntClass::Uint16, IntClass::Uint32];
    /// MATLAB's name of the class.
    pub fn name(self) -> &'static str {
        match self {
            IntClass::Int8 => "int8",
            IntClass::Int16 => "int16",
            IntClass::Uint8 => "uint8",
            IntClass::Uint16 => "uint16",
            IntClass::Uint32 => "uint32",
        }
    }
    pub fn from_name(name: &str) -> Option<IntClass> {
        IntClass::ALL.into_iter().find(|c| c.name() == name)
    }
    /// The element type its values are stored in: i32 holds the 8- and 16-bit classes,
    /// i64 uint32.
    pub fn storage(self) -> ScalarType {
        match self {
            IntClass::Uint32 => ScalarType::I64,
            _ => ScalarType::I32,
        }
    }
    /// The smallest and largest value (intmin, intmax), exact as doubles.
    pub fn bounds(self) -> (f64, f64) {
        match self {
            IntClass::Int8 => (-128.0, 127.0),
            IntClass::Int16 => (-32768.0, 32767.0),
            IntClass::Uint8 => (0.0, 255.0),
            IntClass::Uint16 => (0.0, 65535.0),
            IntClass::Uint32 => (0.0, 4294967295.0),
        }
    }
}

impl Ty {
    pub fn scalar(elem: ScalarType) -> Ty {
        Ty { elem, rank: 0, class: None }
    }
    pub fn array(elem: ScalarType, rank: u32) -> Ty {
        Ty { elem, rank, class: None }
    }
    /// A value of integer class `class` (stored in its element type).
    pub fn of_class(class: IntClass, rank: u32) -> Ty {
        Ty { elem: class.storage(), rank, class: Some(class) }
    }
    /// The same element type and class with another rank (an element of an array, a
    /// slice of it).
    pub fn with_rank(self, rank: u32) -> Ty {
        Ty { rank, ..self }
    }
    pub fn is_scalar(self) -> bool {
        self.rank == 0
    }
    /// Another element type: a class stays only while the element type does (a cast
    /// to double leaves an int8 a double).
    pub fn with_elem(self, elem: ScalarType) -> Ty {
        Ty { elem, rank: self.rank, class: if elem == self.elem { self.class } else { None } }
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
        let e = self.class.map(IntClass::name).unwrap_or(e);
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
/// array, or arrays of different ranks, cannot share one compiled variable), and so must
/// classes (an int8 and a double, or an int8 and an int16, have no common class).
pub fn join(a: Ty, b: Ty) -> Option<Ty> {
    (a.rank == b.rank && a.class == b.class).then(|| Ty { elem: wider(a.elem, b.elem), rank: a.rank, class: a.class })
}

/// Join of the values assigned to one source variable: as `join`, except that a scalar
/// and a vector make a vector (the language has no scalars: R's `r <- 0` then `r <- r +
/// v[a:b]`), where each scalar assigned becomes a vector of one element. Scalars and
/// matrices or arrays still do not meet (R's `dim` attribute would differ).
pub fn join_assigned(a: Ty, b: Ty) -> Option<Ty> {
    match (a.rank, b.rank) {
        (0, 1) | (1, 0) if a.class == b.class => Some(Ty { elem: wider(a.elem, b.elem), rank: 1, class: a.class }),
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
