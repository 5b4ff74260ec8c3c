// Planted bug "no_bounds_check" for the course check: the solution with one mistake students make.
__kernel void vadd_abc(__global const float* a,
                       __global const float* b,
                       __global const float* c,
                       __global float* d,
                       const unsigned int count)
{
    const size_t i = get_global_id(0);
    // Work-items past the end exist whenever the global size was rounded up: they must not touch memory.
    {  // planted bug: no bounds check
        // Float addition is not associative; the test's tolerance allows any order of the two adds.
        d[i] = a[i] + b[i] + c[i];
    }
}
