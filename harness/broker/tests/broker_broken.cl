// A kernel with a syntax error on line 4, where the compiler's notes expand SECRET.
kernel void broken(global uint* out) {
    out[0] = 1u;
    out[1] = SECRET SECRET;
}
