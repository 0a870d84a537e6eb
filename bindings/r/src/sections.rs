//! The sections of an R function that compile when the whole function does not
//! (`velociraptor::frontend::sections`), as R lists for the package's outliner
//! (r-package/R/sections.R): where each section is in `body(f)`, its lines, inputs and
//! outputs, and what runs where, for `vr_explain`.

use crate::failure::Failure;
use extendr_api::prelude::*;
use velociraptor::frontend::r;
use velociraptor::frontend::sections::{analyze, NoteKind};
use velociraptor::{ErrorKind, VrError};

fn strings(v: &[String]) -> Robj {
    Robj::from(v.to_vec())
}

/// `list(sections = list(list(number, path, count, first_line, last_line, inputs,
/// outputs, keep, in_loop), ...), notes = list(list(first_line, last_line, depth, kind,
/// section, construct, line), ...))` for function `name` of R `source`.
pub fn sections(source: &str, name: &str) -> Result<Robj, Failure> {
    let p = r::program(source).map_err(|e| Failure::new(crate::failure::Phase::Compile, e))?;
    let def =
        p.defs.get(name).cloned().ok_or_else(|| Failure::from(VrError::new(ErrorKind::InvalidArgument, format!("no function `{name}` in the source"))))?;
    let a = analyze(&p, name, &def);
    let secs: Vec<Robj> = a
        .sections
        .iter()
        .map(|s| {
            list!(
                number = s.number as i32,
                path = Robj::from(s.path.iter().map(|&k| k as i32).collect::<Vec<i32>>()),
                count = s.count as i32,
                first_line = s.first_line as i32,
                last_line = s.last_line as i32,
                inputs = strings(&s.inputs),
                outputs = strings(&s.outputs),
                keep = strings(&s.keep),
                in_loop = s.in_loop
            )
            .into()
        })
        .collect();
    let notes: Vec<Robj> = a
        .notes
        .iter()
        .map(|n| {
            let (kind, section, construct, line): (&str, Robj, Robj, Robj) = match &n.kind {
                NoteKind::Section(k) => ("section", Robj::from(*k as i32), Robj::from(()), Robj::from(())),
                NoteKind::Excluded { construct, line } => ("excluded", Robj::from(()), Robj::from(construct.as_str()), Robj::from(*line as i32)),
                NoteKind::NoLoop => ("no_loop", Robj::from(()), Robj::from(()), Robj::from(())),
                NoteKind::Value => ("value", Robj::from(()), Robj::from(()), Robj::from(())),
            };
            list!(
                first_line = n.first_line as i32,
                last_line = n.last_line as i32,
                depth = n.depth as i32,
                kind = kind,
                section = section,
                construct = construct,
                line = line
            )
            .into()
        })
        .collect();
    Ok(list!(sections = List::from_values(secs), notes = List::from_values(notes)).into())
}
