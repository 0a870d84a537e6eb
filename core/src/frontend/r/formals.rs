//! The formal arguments of the R functions the front end compiles, as R 4.2 declares
//! them (`args(matrix)`, ...; for generics, the default method's). Calls of these
//! builtins are matched against them as R matches them (`frontend::matching`): exact
//! names, then unique prefixes (`complex(real = r, imag = i)`, `matrix(x, nr = 2)`),
//! then positions; a name R would reject is reported in R's words.

use crate::frontend::hir::{Expr, ExprKind};
use crate::frontend::matching::DOTS;

/// R's formals of `name`, when the front end knows them.
pub fn of(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "matrix" => &["data", "nrow", "ncol", "byrow", "dimnames"],
        "array" => &["data", "dim", "dimnames"],
        // rep is primitive; these are the names its internal matching knows.
        "rep" => &["x", "times", "length.out", "each"],
        "numeric" | "double" | "integer" | "logical" | "character" => &["length"],
        "complex" => &["length.out", "real", "imaginary", "modulus", "argument"],
        "seq" => &["from", "to", "by", "length.out", "along.with", DOTS],
        "seq_len" => &["length.out"],
        "seq_along" => &["along.with"],
        "atan2" => &["y", "x"],
        "ifelse" => &["test", "yes", "no"],
        "crossprod" | "tcrossprod" => &["x", "y"],
        "sum" | "prod" | "max" | "min" | "range" | "any" | "all" => &[DOTS, "na.rm"],
        "mean" => &["x", DOTS],
        "sapply" => &["X", "FUN", DOTS, "simplify", "USE.NAMES"],
        "vapply" => &["X", "FUN", "FUN.VALUE", DOTS, "USE.NAMES"],
        "lapply" => &["X", "FUN", DOTS],
        "mapply" => &["FUN", DOTS, "MoreArgs", "SIMPLIFY", "USE.NAMES"],
        "Map" => &["f", DOTS],
        "Reduce" => &["f", "x", "init", "right", "accumulate"],
        "Filter" => &["f", "x"],
        "outer" => &["X", "Y", "FUN", DOTS],
        "apply" => &["X", "MARGIN", "FUN", DOTS, "simplify"],
        "unlist" => &["x", "recursive", "use.names"],
        _ => return None,
    })
}

/// Whether giving `formal` of `func` this value changes nothing compiled code does (R's
/// default, or a setting without effect on compiled values: they carry no names).
pub fn is_default(func: &str, formal: &str, value: &Expr) -> bool {
    matches!(
        (func, formal, &value.kind),
        ("matrix", "byrow", ExprKind::Bool(false))
            | (_, "dimnames", ExprKind::Null)
            | (_, "na.rm", ExprKind::Bool(false))
    )
}
