//! Front ends: host-language source to VRIR. The engine (`hir`, `infer`, `lower`) is
//! shared by every language; each language brings a parser and a rule table (`r/`).
//! See DESIGN.md "Front ends" and docs/frontend-r.md.

pub mod hir;
pub mod r;
