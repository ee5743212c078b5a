/* kiln tests — a shared library that is not a kiln model (no kiln_model_manifest). */
int kiln_test_not_a_model(void) { return 42; }
