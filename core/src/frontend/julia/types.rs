//! Julia type annotations, as written (`Vector{Float64}`, `AbstractArray{<:Real,2}`,
//! `T`), against the types compiled code has: whether an argument of a type matches an
//! annotation (Julia's method matching, with its invariant type parameters:
//! `Vector{Real}` matches no `Vector{Float64}`), and the array constructors
//! `Vector{T}(undef, n)`.

use super::rules::{scalar_type, BOOL, COMPLEX, FLOAT, INT};
use crate::frontend::types::Ty;
use crate::vrir::ScalarType;

/// A parsed type: a name and its parameters, or `<:T`.
#[derive(Debug, PartialEq)]
enum T {
    Named(String, Vec<T>),
    Sub(Box<T>),
    Int(i64),
}

fn parse(s: &str) -> Option<T> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pos = 0;
    let t = parse_at(&chars, &mut pos)?;
    (pos == chars.len()).then_some(t)
}

fn parse_at(c: &[char], pos: &mut usize) -> Option<T> {
    if c.get(*pos) == Some(&'<') && c.get(*pos + 1) == Some(&':') {
        *pos += 2;
        return Some(T::Sub(Box::new(parse_at(c, pos)?)));
    }
    let start = *pos;
    while *pos < c.len() && !matches!(c[*pos], '{' | '}' | ',') {
        *pos += 1;
    }
    let name: String = c[start..*pos].iter().collect();
    if name.is_empty() {
        return None;
    }
    if let Ok(n) = name.parse::<i64>() {
        return Some(T::Int(n));
    }
    // `T<:Real` inside `where {T<:Real}` reads as its bound.
    let name = name.split("<:").next().unwrap_or(&name).to_string();
    let mut params = Vec::new();
    if c.get(*pos) == Some(&'{') {
        *pos += 1;
        loop {
            if c.get(*pos) == Some(&'}') {
                *pos += 1;
                break;
            }
            params.push(parse_at(c, pos)?);
            match c.get(*pos) {
                Some(',') => *pos += 1,
                Some('}') => {}
                _ => return None,
            }
        }
    }
    let name = name.rsplit('.').next().unwrap_or(&name).to_string();
    Some(T::Named(name, params))
}

/// Abstract scalar types and the element types they hold.
fn abstract_scalar(name: &str) -> Option<&'static [ScalarType]> {
    Some(match name {
        "Real" => &[BOOL, INT, FLOAT],
        "Integer" => &[BOOL, INT],
        "Signed" => &[INT],
        "AbstractFloat" => &[FLOAT],
        "Number" => &[BOOL, INT, FLOAT, COMPLEX],
        "Complex" => &[COMPLEX],
        _ => return None,
    })
}

/// Known type names that are neither element types nor arrays (no argument has them).
fn foreign(name: &str) -> bool {
    matches!(
        name,
        "String"
            | "Symbol"
            | "Char"
            | "Function"
            | "Tuple"
            | "Dict"
            | "Nothing"
            | "Missing"
            | "Int32"
            | "Float32"
            | "UInt8"
            | "UInt64"
            | "Int8"
            | "Int16"
            | "UInt"
    )
}

/// Does element type `e` match the type parameter `p` of an array annotation?
fn elem_matches(p: &T, e: ScalarType) -> bool {
    match p {
        T::Sub(b) => match &**b {
            T::Named(n, _) if n == "Any" => true,
            T::Named(n, params) => match abstract_scalar(n) {
                Some(set) => set.contains(&e),
                None => scalar_type(n).map_or(!foreign(n) && params.is_empty(), |s| s == e),
            },
            _ => false,
        },
        T::Named(n, params) => match scalar_type(&render(p)) {
            Some(s) => s == e,
            // Invariance: `Vector{Real}` is not a `Vector{Float64}`. A name we do not
            // know is a type variable (`where T`), which matches any element type.
            None => abstract_scalar(n).is_none() && n != "Any" && !foreign(n) && params.is_empty(),
        },
        T::Int(_) => false,
    }
}

fn render(t: &T) -> String {
    match t {
        T::Named(n, ps) if ps.is_empty() => n.clone(),
        T::Named(n, ps) => format!("{n}{{{}}}", ps.iter().map(render).collect::<Vec<_>>().join(",")),
        T::Sub(b) => format!("<:{}", render(b)),
        T::Int(k) => k.to_string(),
    }
}

/// Does an argument of type `given` match the annotation `annotation`?
pub fn matches(annotation: &str, given: Ty) -> bool {
    let Some(t) = parse(annotation) else { return true };
    let T::Named(name, params) = &t else { return true };
    if let Some(s) = scalar_type(&render(&t)) {
        return given == Ty::scalar(s);
    }
    if let Some(set) = abstract_scalar(name).filter(|_| params.is_empty()) {
        return given.rank == 0 && set.contains(&given.elem);
    }
    let rank_ok = |r: Option<u32>| r.is_none_or(|r| r == given.rank);
    let elem_ok = |k: usize| params.get(k).is_none_or(|p| elem_matches(p, given.elem));
    match name.as_str() {
        "Any" => true,
        "Vector" | "AbstractVector" | "DenseVector" | "StridedVector" => given.rank == 1 && elem_ok(0),
        "Matrix" | "AbstractMatrix" | "DenseMatrix" | "StridedMatrix" => given.rank == 2 && elem_ok(0),
        "AbstractVecOrMat" | "VecOrMat" => (given.rank == 1 || given.rank == 2) && elem_ok(0),
        "Array" | "AbstractArray" | "DenseArray" | "StridedArray" => {
            let n = match params.get(1) {
                Some(T::Int(n)) => Some(*n as u32),
                _ => None,
            };
            given.rank > 0 && rank_ok(n) && elem_ok(0)
        }
        "Union" => true,
        n if foreign(n) => false,
        // A type variable (`x::T where T`) or a type we cannot judge.
        _ => true,
    }
}

/// Is `name` an array type used as a constructor (`Vector{Float64}`)?
pub fn is_array_constructor(name: &str) -> bool {
    matches!(parse(name), Some(T::Named(n, ps)) if !ps.is_empty() && matches!(n.as_str(), "Vector" | "Matrix" | "Array"))
}

/// The element type and rank (None: any, from the dims) of an array constructor.
pub fn array_constructor(name: &str) -> Option<(ScalarType, Option<u32>)> {
    let T::Named(n, ps) = parse(name)? else { return None };
    let elem = scalar_type(&render(ps.first()?))?;
    match (n.as_str(), ps.get(1)) {
        ("Vector", None) => Some((elem, Some(1))),
        ("Matrix", None) => Some((elem, Some(2))),
        ("Array", None) => Some((elem, None)),
        ("Array", Some(T::Int(k))) => Some((elem, Some(*k as u32))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_match_as_julia_dispatches() {
        let v = Ty::array(FLOAT, 1);
        let m = Ty::array(INT, 2);
        assert!(matches("Vector{Float64}", v));
        assert!(matches("AbstractVector{<:Real}", v));
        assert!(matches("AbstractArray{Float64,1}", v));
        assert!(matches("AbstractArray", m));
        assert!(matches("Matrix{Int}", m));
        assert!(matches("T", m));
        assert!(!matches("Vector{Real}", v));
        assert!(!matches("Matrix{Float64}", v));
        assert!(!matches("Vector{Int64}", v));
        assert!(matches("Real", Ty::scalar(INT)));
        assert!(!matches("Integer", Ty::scalar(FLOAT)));
        assert!(!matches("Float64", Ty::scalar(INT)));
        assert!(matches("Complex{Float64}", Ty::scalar(COMPLEX)));
        assert!(!matches("String", Ty::scalar(INT)));
        assert_eq!(array_constructor("Matrix{Float64}"), Some((FLOAT, Some(2))));
        assert_eq!(array_constructor("Array{Int,3}"), Some((INT, Some(3))));
    }
}
