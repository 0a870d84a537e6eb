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
