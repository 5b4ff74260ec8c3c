// Planted bug "drops_c" for the course check: the solution with one mistake students make.
__kernel void vadd_abc(__global const float* a,
                       __global const float* b,
                       __global const float* c,
                       __global float* d,
                       const unsigned int count)
{
    const size_t i = get_global_id(0);
    // Work-items past the end exist whenever the global size was rounded up: they must not touch memory.
    if (i < count) {
        // Float addition is not associative; the test's tolerance allows any order of the two adds.
        d[i] = a[i] + b[i];  // planted bug
    }
}
