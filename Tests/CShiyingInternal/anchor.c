/* The test-only module CShiyingInternal is headers only; SwiftPM wants one source. */
int sy__internal_api_anchor(void);
int sy__internal_api_anchor(void) { return 0; }
