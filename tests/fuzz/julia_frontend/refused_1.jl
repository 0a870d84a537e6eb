# Julia the front end refuses, each with the construct and its line named
# (core/tests/frontend_julia_diagnostics.rs). The adapter runs these in Julia.
counter = 0
counter = 1

