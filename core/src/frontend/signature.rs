//! What a host tells a front end about a call it compiles: the types of the arguments
//! (lists included) and of the globals the function reads, and the JSON text form in
//! which they cross the C API (`vr_compile_source_sig`). A list crosses as its elements,
//! so the compiled function's parameters are the arguments' scalar and array elements
//! in order (`params`), then the globals' the same way.
//!
//! ```text
//! {"args": [T, ...], "globals": [["name", T], ...]}
//! T = "f64" | "i32[1]" | "bool[2]" | "c128[3]"             a scalar, an array of that rank
//!   | {"list": [["name", T], [null, T], ...], "frame": false}  a list (a data frame: true)
//!   | {"opaque": "a character vector"}                     a value compiled code cannot read
//!   | "int8" | "uint16[2]" | ...                           MATLAB's int8, int16, uint8,
//!                                uint16 (stored as i32) and uint32 (as i64) values
//! ```

use super::types::{AnyTy, Field, IntClass, ListTy, Ty};
use crate::runtime::error::{ErrorKind, VrError, VrResult};
use crate::vrir::{Layout, ScalarType, Type};
use serde_json::{json, Value as Json};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signature {
    /// One per leading formal parameter given (the rest take their defaults).
    pub args: Vec<AnyTy>,
    /// The free variables read from the function's environment, in the order their
    /// values are passed after the arguments.
    pub globals: Vec<(String, AnyTy)>,
}

fn bad(m: String) -> VrError {
    VrError::new(ErrorKind::InvalidArgument, format!("signature: {m}"))
}

/// Every scalar and array a value of type `t` passes, in order.
pub fn flat_types(t: &AnyTy, layout: Layout, out: &mut Vec<Type>) {
    match t {
        AnyTy::Value(v) => out.push(v.vrir(layout)),
        AnyTy::List(l) => out.extend(l.leaves().into_iter().map(|(_, v)| v.vrir(layout))),
        AnyTy::Opaque(_) => {}
    }
}

impl Signature {
    pub fn of_values(args: Vec<Ty>) -> Signature {
        Signature {
            args: args.into_iter().map(AnyTy::Value).collect(),
            globals: Vec::new(),
        }
    }

    /// The compiled function's parameter types: the arguments', then the globals'.
    pub fn params(&self, layout: Layout) -> Vec<Type> {
        let mut out = Vec::new();
        for t in self.args.iter().chain(self.globals.iter().map(|(_, t)| t)) {
            flat_types(t, layout, &mut out);
        }
        out
    }

    pub fn from_json(text: &str) -> VrResult<Signature> {
        let j: Json = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let Json::Object(o) = &j else {
            return Err(bad("expected an object {\"args\": [...], \"globals\": [...]}".into()));
        };
        if let Some(k) = o.keys().find(|k| !matches!(k.as_str(), "args" | "globals")) {
            return Err(bad(format!("unknown field `{k}`")));
        }
        let args = match o.get("args") {
            None => Vec::new(),
            Some(Json::Array(a)) => a.iter().map(type_from_json).collect::<VrResult<_>>()?,
            Some(other) => return Err(bad(format!("`args` must be an array, not {other}"))),
        };
        let globals = match o.get("globals") {
            None => Vec::new(),
            Some(Json::Array(a)) => a
                .iter()
                .map(|g| match g.as_array().map(|v| v.as_slice()) {
                    Some([Json::String(n), t]) => Ok((n.clone(), type_from_json(t)?)),
                    _ => Err(bad(format!("a global is [\"name\", type], not {g}"))),
                })
                .collect::<VrResult<_>>()?,
            Some(other) => return Err(bad(format!("`globals` must be an array, not {other}"))),
        };
        Ok(Signature { args, globals })
    }

    pub fn to_json(&self) -> String {
        let args: Vec<Json> = self.args.iter().map(type_to_json).collect();
        let globals: Vec<Json> = self.globals.iter().map(|(n, t)| json!([n, type_to_json(t)])).collect();
        json!({"args": args, "globals": globals}).to_string()
    }
}

fn elem_name(e: ScalarType) -> &'static str {
    match e {
        ScalarType::Bool => "bool",
        ScalarType::I32 => "i32",
        ScalarType::I64 => "i64",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        ScalarType::C64 => "c64",
        ScalarType::C128 => "c128",
    }
}

pub fn type_to_json(t: &AnyTy) -> Json {
    match t {
        AnyTy::Value(v) => {
            let e = v.class.map(IntClass::name).unwrap_or(elem_name(v.elem));
            if v.rank == 0 {
                json!(e)
            } else {
                json!(format!("{e}[{}]", v.rank))
            }
        }
        AnyTy::List(l) => {
            let fields: Vec<Json> = l.fields.iter().map(|f| json!([f.name, type_to_json(&f.ty)])).collect();
            json!({"list": fields, "frame": l.frame})
        }
        AnyTy::Opaque(w) => json!({"opaque": w}),
    }
}

/// Lists nest at most this deep (a deeper element is refused).
const MAX_DEPTH: usize = 16;

/// A type from its JSON text (`vr_function_result_list`'s answer, say).
pub fn type_from_text(text: &str) -> VrResult<AnyTy> {
    let j: Json = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    type_from_json(&j)
}

pub fn type_from_json(j: &Json) -> VrResult<AnyTy> {
    type_at(j, 0)
}

fn type_at(j: &Json, depth: usize) -> VrResult<AnyTy> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("lists nested deeper than {MAX_DEPTH}")));
    }
    match j {
        Json::String(s) => {
            let (elem, rank) = match s.split_once('[') {
                None => (s.as_str(), 0),
                Some((e, r)) => {
                    let r: u32 = r.strip_suffix(']').and_then(|r| r.parse().ok()).ok_or_else(|| bad(format!("bad type `{s}`")))?;
                    if r == 0 {
                        return Err(bad(format!("bad type `{s}`: an array has rank 1 or more")));
                    }
                    (e, r)
                }
            };
            if let Some(c) = IntClass::from_name(elem) {
                return Ok(AnyTy::Value(Ty::of_class(c, rank)));
            }
            let elem = match elem {
                "bool" => ScalarType::Bool,
                "i32" => ScalarType::I32,
                "i64" => ScalarType::I64,
                "f32" => ScalarType::F32,
                "f64" => ScalarType::F64,
                "c64" => ScalarType::C64,
                "c128" => ScalarType::C128,
                other => return Err(bad(format!("unknown element type `{other}`"))),
            };
            Ok(AnyTy::Value(Ty::array(elem, rank)))
        }
        Json::Object(o) if o.contains_key("list") => {
            let frame = match o.get("frame") {
                None => false,
                Some(Json::Bool(b)) => *b,
                Some(other) => return Err(bad(format!("`frame` must be true or false, not {other}"))),
            };
            let Some(Json::Array(items)) = o.get("list") else {
                return Err(bad("`list` must be an array of [name, type]".into()));
            };
            let fields = items
                .iter()
                .map(|f| match f.as_array().map(|v| v.as_slice()) {
                    Some([n, t]) => {
                        let name = match n {
                            Json::Null => None,
                            Json::String(s) => Some(s.clone()),
                            other => return Err(bad(format!("a list element's name is a string or null, not {other}"))),
                        };
                        Ok(Field {
                            name,
                            ty: type_at(t, depth + 1)?,
                        })
                    }
                    _ => Err(bad(format!("a list element is [name, type], not {f}"))),
                })
                .collect::<VrResult<_>>()?;
            Ok(AnyTy::List(ListTy { frame, fields }))
        }
        Json::Object(o) if o.contains_key("opaque") => Ok(AnyTy::Opaque(o["opaque"].as_str().unwrap_or("a value compiled code cannot hold").to_string())),
        other => Err(bad(format!("unknown type {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_round_trip_through_json() {
        let text = r#"{"args": ["f64[1]", {"list": [["x", "i32"], [null, {"list": [["m", "f64[2]"]], "frame": false}], ["s", {"opaque": "a character vector"}]], "frame": true}], "globals": [["K", "c128"]]}"#;
        let s = Signature::from_json(text).unwrap();
        assert_eq!(Signature::from_json(&s.to_json()).unwrap(), s);
        assert_eq!(s.params(Layout::Col).len(), 4);
        assert!(Signature::from_json(r#"{"args": ["f65"]}"#).is_err());
        assert!(Signature::from_json(r#"{"args": [], "extra": 1}"#).is_err());
    }
}
