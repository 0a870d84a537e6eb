//! The verifier: the only type checker.
