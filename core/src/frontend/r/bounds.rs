//! Index errors in R's terms. VRIR's bounds error says `x[4]: index 4 out of bounds 1..4
//! in dimension 0` (a half-open range, dimensions from 0); an R user reads `1..4` as
//! inclusive and counts dimensions from 1. The error keeps its fields (variable, index,
//! bound, dim) and gets R's words:
//!
//! - One subscript (a vector, or a matrix indexed as one): past the end R reads NA, and
//!   grows the vector on assignment; an index of 0 selects nothing; a negative one
//!   excludes. R has an answer in every case (or, for `x[[i]]`, its own error), so the
//!   error is of kind `unsupported` and the R adapter runs the call in R:
//!   `x[4]: index 4 is beyond length 3`.
//! - Several subscripts (a matrix or an array): past the extent R raises "subscript out
//!   of bounds" too, so the error stays an index error, naming the dimension as R users
//!   do: `m[5, 2]: row 5 of 4`, `m[1, 7]: column 7 of 3`, `a[1, 1, 9]: index 9 of 4 in
//!   dimension 3`. A zero or negative subscript there selects or drops in R: `unsupported`.

use crate::runtime::error::{ErrorKind, VrError};

/// What R says of index `index` into one subscript of extent `length` (`shown`: the
/// access as R would write it).
pub fn single_message(shown: &str, index: i64, length: i64) -> String {
    if index > length {
        format!("{shown}: index {index} is beyond length {length} (R reads NA there, or grows the vector when assigning)")
    } else if index == 0 {
        format!("{shown}: index 0 (R selects nothing with it)")
    } else {
        format!("{shown}: negative index {index} (R excludes that element)")
    }
}

/// An R name for a VRIR variable in an error: arguments copied at entry are `_arg_x`,
/// temporaries of the compiler a value without a name.
fn r_name(v: &str) -> String {
    if let Some(x) = v.strip_prefix("_arg_") {
        return x.to_string();
    }
    if v.starts_with('_') || v.is_empty() || v == "array" {
        return "(value)".to_string();
    }
    v.to_string()
}

/// A subscript as VRIR's message shows it, as R would write it: `_:_` (a whole
/// dimension) is empty, a gather `[1, 5]` is `c(1, 5)`.
fn r_subscript(s: &str) -> String {
    let s = s.trim();
    if s == "_:_" {
        return String::new();
    }
    if let Some(items) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if !items.contains("indices") {
            return format!("c({items})");
        }
    }
    s.to_string()
}

/// The variable and the subscripts of the access in a bounds error's message (`x[4]:
/// index 4 out of bounds ...`, also after a `kind in f (line 3): ` prefix).
fn access(message: &str, index: i64) -> Option<(String, Vec<String>)> {
    let marker = format!(": index {index} out of bounds");
    let before = &message[..message.find(&marker)?];
    let text = before.rsplit(": ").next()?;
    let open = text.find('[')?;
    let close = text.rfind(']')?;
    let (name, inner) = (&text[..open], text.get(open + 1..close)?);
    let mut subscripts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (k, c) in inner.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                subscripts.push(r_subscript(&inner[start..k]));
                start = k + 1;
            }
            _ => {}
        }
    }
    subscripts.push(r_subscript(&inner[start..]));
    Some((name.to_string(), subscripts))
}

/// A bounds error of compiled R code in R's terms (other errors pass through).
pub fn explain(e: VrError) -> VrError {
    if e.kind != ErrorKind::OutOfBounds {
        return e;
    }
    let (Some(index), Some(bound)) = (e.index, e.bound) else { return e };
    let Some((name, subscripts)) = access(&e.message, index) else { return e };
    let name = r_name(e.variable.as_deref().unwrap_or(&name));
    let shown = format!("{name}[{}]", subscripts.join(", "));
    let dim = e.dim.unwrap_or(0);
    let (kind, message) = if subscripts.len() <= 1 {
        (ErrorKind::Unsupported, single_message(&shown, index, bound))
    } else if index < 1 {
        (ErrorKind::Unsupported, format!("{shown}: index {index} in dimension {} (R selects nothing with 0 and excludes with a negative index)", dim + 1))
    } else {
        let what = match dim {
            0 => format!("row {index} of {bound}"),
            1 => format!("column {index} of {bound}"),
            d => format!("index {index} of {bound} in dimension {}", d + 1),
        };
        (ErrorKind::OutOfBounds, format!("{shown}: {what} (subscript out of bounds)"))
    };
    let mut out = VrError::new(kind, message);
    out.function = e.function;
    out.line = e.line;
    out.variable = Some(name);
    out.index = e.index;
    out.bound = e.bound;
    out.dim = e.dim;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oob(message: &str, variable: &str, index: i64, bound: i64, dim: u32) -> VrError {
        let mut e = VrError::new(ErrorKind::OutOfBounds, message);
        e.variable = Some(variable.into());
        e.index = Some(index);
        e.bound = Some(bound);
        e.dim = Some(dim);
        e.function = Some("f".into());
        e.line = Some(3);
        e
    }

    #[test]
    fn a_vector_read_past_its_end_is_r_s_na() {
        let e = explain(oob("x[4]: index 4 out of bounds 1..4 in dimension 0", "x", 4, 3, 0));
        assert_eq!(e.kind, ErrorKind::Unsupported);
        assert!(e.message.starts_with("x[4]: index 4 is beyond length 3"), "{}", e.message);
        assert_eq!((e.index, e.bound, e.dim, e.line), (Some(4), Some(3), Some(0), Some(3)));
    }

    #[test]
    fn matrices_name_rows_and_columns() {
        let e = explain(oob("index out of bounds in f (line 3): m[5, 2]: index 5 out of bounds 1..5 in dimension 0", "m", 5, 4, 0));
        assert_eq!(e.kind, ErrorKind::OutOfBounds);
        assert_eq!(e.message, "m[5, 2]: row 5 of 4 (subscript out of bounds)");
        let e = explain(oob("m[_:_, 7]: index 7 out of bounds 1..4 in dimension 1", "m", 7, 3, 1));
        assert_eq!(e.message, "m[, 7]: column 7 of 3 (subscript out of bounds)");
        let e = explain(oob("a[1, [2, 9], 9]: index 9 out of bounds 1..5 in dimension 2", "_arg_a", 9, 4, 2));
        assert_eq!(e.message, "a[1, c(2, 9), 9]: index 9 of 4 in dimension 3 (subscript out of bounds)");
        let e = explain(oob("m[0, 1]: index 0 out of bounds 1..3 in dimension 0", "m", 0, 2, 0));
        assert_eq!(e.kind, ErrorKind::Unsupported);
    }
}
