//! VRIR types: scalars, arrays (element type, rank, layout), ranges, domains, tuples,
//! void and function types. Sizes and strides are values, never part of a type.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Element and scalar types. `C64` is a complex of two `f32`, `C128` of two `f64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    Bool,
    I32,
    I64,
    F32,
    F64,
    C64,
    C128,
}

impl ScalarType {
    pub const ALL: [ScalarType; 7] = [
        ScalarType::Bool,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::C64,
        ScalarType::C128,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::C64 => "c64",
            ScalarType::C128 => "c128",
        }
    }

    pub fn from_name(s: &str) -> Option<ScalarType> {
        ScalarType::ALL.iter().copied().find(|t| t.name() == s)
    }

    pub fn is_int(self) -> bool {
        matches!(self, ScalarType::I32 | ScalarType::I64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }
    pub fn is_complex(self) -> bool {
        matches!(self, ScalarType::C64 | ScalarType::C128)
    }
    /// Integers, floats and complex: the types arithmetic is defined on.
    pub fn is_numeric(self) -> bool {
        self != ScalarType::Bool
    }
    /// Integers and floats: the types that are ordered.
    pub fn is_real(self) -> bool {
        self.is_int() || self.is_float()
    }
    /// The real type of a complex type's parts (identity on real types).
    pub fn real_part(self) -> ScalarType {
        match self {
            ScalarType::C64 => ScalarType::F32,
            ScalarType::C128 => ScalarType::F64,
            t => t,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How an array's indices map to addresses. `Strided` arrays carry an explicit stride per
/// dimension (NumPy views); any array can be viewed as strided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Row,
    Col,
    Strided,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Row => "row",
            Layout::Col => "col",
            Layout::Strided => "strided",
        }
    }
    pub fn from_name(s: &str) -> Option<Layout> {
        match s {
            "row" => Some(Layout::Row),
            "col" => Some(Layout::Col),
            "strided" => Some(Layout::Strided),
            _ => None,
        }
    }
}

/// An array type: element type, number of dimensions (at least 1) and layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArrayType {
    pub elem: ScalarType,
    pub ndims: u32,
    pub layout: Layout,
}

impl ArrayType {
    pub fn new(elem: ScalarType, ndims: u32, layout: Layout) -> ArrayType {
        ArrayType { elem, ndims, layout }
    }
}

impl fmt::Display for ArrayType {
    /// Text form: `f64[2,col]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{},{}]", self.elem, self.ndims, self.layout.name())
    }
}

/// Every VRIR type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Type {
    Scalar { elem: ScalarType },
    Array(ArrayType),
    /// One (start, stop, step) triple of i64; stop is inclusive.
    Range,
    /// `n` ranges: an n-dimensional rectangular iteration space.
    Domain { ndims: u32 },
    Tuple { items: Vec<Type> },
    Void,
    Func { params: Vec<Type>, results: Vec<Type> },
}

impl Type {
    pub fn scalar(elem: ScalarType) -> Type {
        Type::Scalar { elem }
    }
    pub fn array(elem: ScalarType, ndims: u32, layout: Layout) -> Type {
        Type::Array(ArrayType::new(elem, ndims, layout))
    }
    pub const BOOL: Type = Type::Scalar { elem: ScalarType::Bool };
    pub const I32: Type = Type::Scalar { elem: ScalarType::I32 };
    pub const I64: Type = Type::Scalar { elem: ScalarType::I64 };
    pub const F32: Type = Type::Scalar { elem: ScalarType::F32 };
    pub const F64: Type = Type::Scalar { elem: ScalarType::F64 };
    pub const C64: Type = Type::Scalar { elem: ScalarType::C64 };
    pub const C128: Type = Type::Scalar { elem: ScalarType::C128 };

    pub fn as_scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar { elem } => Some(*elem),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<ArrayType> {
        match self {
            Type::Array(a) => Some(*a),
            _ => None,
        }
    }
    /// The element type of a scalar or array type.
    pub fn elem(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar { elem } => Some(*elem),
            Type::Array(a) => Some(a.elem),
            _ => None,
        }
    }
    /// Scalars and arrays: the "numeric types" (NType) of the spec.
    pub fn is_ntype(&self) -> bool {
        matches!(self, Type::Scalar { .. } | Type::Array(_))
    }
}

impl fmt::Display for Type {
    /// The text form of a type (see docs/vrir-text.md).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar { elem } => write!(f, "{elem}"),
            Type::Array(a) => write!(f, "{a}"),
            Type::Range => f.write_str("range"),
            Type::Domain { ndims } => write!(f, "domain[{ndims}]"),
            Type::Tuple { items } => {
                f.write_str("(tuple")?;
                for t in items {
                    write!(f, " {t}")?;
                }
                f.write_str(")")
            }
            Type::Void => f.write_str("void"),
            Type::Func { params, results } => {
                f.write_str("(fn (")?;
                for (i, t) in params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(") (")?;
                for (i, t) in results.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str("))")
            }
        }
    }
}
