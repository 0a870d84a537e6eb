//! The S-expression text form of VRIR (docs/vrir-text.md): parser and printer.
