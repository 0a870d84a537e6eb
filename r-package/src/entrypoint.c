// Registers the .Call entry points that bindings/r (extendr) generates.
void R_init_velociraptor_extendr(void *dll);

void R_init_velociraptor(void *dll) {
    R_init_velociraptor_extendr(dll);
}
