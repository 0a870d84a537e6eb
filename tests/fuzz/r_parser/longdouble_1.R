# R functions whose results R accumulates in long double (summary.c, cum.c, array.c),
# compiled and compared with R bit for bit by core/tests/frontend_r_longdouble.rs.

