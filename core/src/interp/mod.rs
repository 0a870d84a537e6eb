//! The reference interpreter: the semantic oracle for every backend.
