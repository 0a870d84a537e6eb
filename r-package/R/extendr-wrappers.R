# The .Call entry points of bindings/r (src/lib.rs, `extendr_module!`). Internal: the
# exported API is in velociraptor.R. Written by hand to match the Rust names.

#' @useDynLib velociraptor, .registration = TRUE
NULL

vr_rs_configure <- function(threads, cache_dir, bounds_checks, gpu, tiers) .Call(wrap__vr_rs_configure, threads, cache_dir, bounds_checks, gpu, tiers)

vr_rs_new <- function(source, name, globals = character()) .Call(wrap__vr_rs_new, source, name, globals)

vr_rs_call <- function(entry, args) .Call(vr_rs_call_fast, entry, args)

vr_rs_explain <- function(entry) .Call(wrap__vr_rs_explain, entry)

vr_rs_sections <- function(source, name) .Call(wrap__vr_rs_sections, source, name)

vr_rs_stats <- function() .Call(wrap__vr_rs_stats)

vr_rs_panic_for_test <- function() .Call(wrap__vr_rs_panic_for_test)
