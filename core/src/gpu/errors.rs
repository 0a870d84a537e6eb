//! Errors from kernels: reading a launch's error slot and wording the error exactly as
//! the interpreter and the cpu backends do (function, line, variable, index, bound,
//! dimension), so that a program's error does not depend on where it ran.

use super::kernel::{Site, SiteKind, ERR_RECORDS, ERR_WORDS, NOTE_INDICES};
use crate::runtime::error::{ErrorKind, VrError};
use crate::vrir::types::ScalarType;

/// The error a slot holds, if any: the record of the lowest failing iteration.
/// `words` is the whole slot as the device left it.
pub fn decode(words: &[i64], sites: &[Site], function: &str, index_base: u8) -> Option<VrError> {
    let head = words.first().copied()?;
    let first = (head as u64 & 0xffff_ffff) as u32 as i32;
    if first == i32::MAX {
        return None;
    }
    let rec = (0..ERR_RECORDS)
        .map(|k| &words[1 + k * ERR_WORDS..1 + (k + 1) * ERR_WORDS])
        .filter(|r| r[0] == first as i64)
        .min_by_key(|r| r[0]);
    let Some(r) = rec else {
        // Never: the lowest iteration's record is kept (see `vr_fail`).
        return Some(VrError::new(
            ErrorKind::Internal,
            format!("gpu: iteration {first} of a kernel failed but left no record"),
        ));
    };
    let site = sites.get(r[1] as usize)?;
    let (index, bound, dim) = (r[2], r[3], r[4]);
    let notes = &r[5..5 + NOTE_INDICES];
    Some(site_error(
        site, index, bound, dim, notes, function, index_base,
    ))
}

/// The error of `site` with the values a kernel recorded.
pub fn site_error(
    site: &Site,
    index: i64,
    bound: i64,
    dim: i64,
    notes: &[i64],
    function: &str,
    index_base: u8,
) -> VrError {
    let variable = site.variable.clone().unwrap_or_default();
    let e = match site.kind {
        SiteKind::OutOfBounds => {
            let name = if variable.is_empty() {
                "array"
            } else {
                variable.as_str()
            };
            let count = site.note.split(',').filter(|s| !s.is_empty()).count();
            let shown: Vec<String> = notes.iter().take(count).map(|v| v.to_string()).collect();
            let lo = index_base as i64;
            let mut e = VrError::new(
                ErrorKind::OutOfBounds,
                format!(
                    "{name}[{}]: index {index} out of bounds {lo}..{} in dimension {dim}",
                    shown.join(", "),
                    bound + lo
                ),
            );
            e.index = Some(index);
            e.bound = Some(bound);
            e.dim = u32::try_from(dim).ok();
            e
        }
        SiteKind::DivisionByZero => VrError::new(ErrorKind::DivisionByZero, "division by zero"),
        SiteKind::InvalidCast => {
            let ty = |k: i64| {
                ScalarType::ALL
                    .get(k as usize)
                    .copied()
                    .unwrap_or(ScalarType::F64)
            };
            let (from, to) = (ty(bound), ty(dim));
            let shown = if from == ScalarType::F32 {
                f32::from_bits(index as u32).to_string()
            } else {
                f64::from_bits(index as u64).to_string()
            };
            VrError::runtime(format!(
                "invalid cast: {from} value {shown} does not fit {to}"
            ))
        }
        SiteKind::Unassigned => {
            VrError::runtime(format!("use of unassigned variable `{variable}`"))
        }
        SiteKind::NegativeExponent => {
            VrError::runtime(format!("negative integer exponent {index} in pow"))
        }
        SiteKind::ZeroStep => VrError::runtime("zero step in a range"),
        SiteKind::MissingReturn => {
            VrError::runtime("missing return: the function ended without returning its results")
        }
    };
    let e = if variable.is_empty() {
        e
    } else {
        e.with_variable(&variable)
    };
    let function = if site.function.is_empty() {
        function
    } else {
        &site.function
    };
    e.with_function(function).with_line(site.line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::kernel::ERR_SLOT_WORDS;

    fn slot_with(records: &[(i64, i64, [i64; 8])]) -> Vec<i64> {
        let mut w = vec![0i64; ERR_SLOT_WORDS];
        let first = records.iter().map(|r| r.0).min().unwrap_or(i32::MAX as i64) as i32;
        w[0] = (first as u32 as i64) | ((records.len() as i64) << 32);
        for (k, (it, site, vals)) in records.iter().enumerate() {
            let r = &mut w[1 + k * ERR_WORDS..1 + (k + 1) * ERR_WORDS];
            r[0] = *it;
            r[1] = *site;
            r[2..].copy_from_slice(&vals[..7]);
        }
        w
    }

    #[test]
    fn the_lowest_iteration_wins_and_is_worded_like_the_interpreter() {
        let sites = vec![
            Site {
                kind: SiteKind::DivisionByZero,
                function: String::new(),
                line: Some(3),
                variable: None,
                note: String::new(),
            },
            Site {
                kind: SiteKind::OutOfBounds,
                function: String::new(),
                line: Some(7),
                variable: Some("a".into()),
                note: "S,S".into(),
            },
        ];
        // Iteration 9 divided by zero, iteration 4 indexed out of bounds.
        let w = slot_with(&[(9, 0, [0; 8]), (4, 1, [11, 10, 1, 2, 11, 0, 0, 0])]);
        let e = decode(&w, &sites, "f", 1).unwrap();
        assert_eq!(e.kind, ErrorKind::OutOfBounds);
        assert_eq!(
            e.message,
            "a[2, 11]: index 11 out of bounds 1..11 in dimension 1"
        );
        assert_eq!(
            (e.index, e.bound, e.dim, e.line),
            (Some(11), Some(10), Some(1), Some(7))
        );
        assert_eq!(e.function.as_deref(), Some("f"));
        assert_eq!(e.variable.as_deref(), Some("a"));
        assert!(decode(&slot_with(&[]), &sites, "f", 1).is_none());
    }

    #[test]
    fn invalid_casts_show_the_value_of_its_own_type() {
        let site = Site {
            kind: SiteKind::InvalidCast,
            function: String::new(),
            line: None,
            variable: None,
            note: String::new(),
        };
        let e = site_error(&site, 2.5e10f64.to_bits() as i64, 4, 1, &[], "g", 0);
        assert_eq!(
            e.message,
            "invalid cast: f64 value 25000000000 does not fit i32"
        );
        let e = site_error(&site, f32::NAN.to_bits() as i64, 3, 2, &[], "g", 0);
        assert_eq!(e.message, "invalid cast: f32 value NaN does not fit i64");
    }
}
