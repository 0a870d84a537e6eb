//! The R front end: R source (files of functions, or one deparsed function) to VRIR.
//! `lexer` and `parser` read R into the shared HIR; `builtins` maps R's library onto
//! VRIR; `rules` is R's rule table for the shared engine. See docs/frontend-r.md.

pub mod lexer;
pub mod parser;
