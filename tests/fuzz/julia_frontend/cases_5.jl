wrap_add(a) = a + 1

