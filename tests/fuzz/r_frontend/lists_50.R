setup_then_run <- function(n) run(setup(n))

# An element assigned at a computed position (R grows the list past its end; compiled
# code raises, kind unsupported, and R runs it).
