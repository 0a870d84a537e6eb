//! VRIR, the typed AST-based IR every front end produces and every backend consumes:
//! the data model, its JSON and text forms, and the verifier.

pub mod ast;
pub mod json;
pub mod text;
pub mod types;
pub mod verify;

pub use ast::*;
pub use types::*;
