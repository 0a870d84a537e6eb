//! Front ends: host-language source to VRIR. The engine (`hir`, `types`, `infer`,
//! `lower`, `rules`) is shared by every language; each language brings a parser and a
//! rule table (`r/`, `julia/`, `matlab/`). See DESIGN.md "Front ends" and docs/frontend-r.md.

// VrError is the crate-wide error type (128 bytes by design: it carries every location
// field); the front end passes it through as the other stages do.
#![allow(clippy::result_large_err)]

pub mod growth;
pub mod hir;
pub mod infer;
pub mod julia;
pub mod lift;
pub mod lists;
pub mod lower;
pub mod matching;
pub mod matlab;
pub mod r;
pub mod rules;
pub mod sections;
pub mod signature;
pub mod subscript;
pub mod tuples;
pub mod types;
