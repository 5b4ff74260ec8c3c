// Planted bug "local_id" for the course check: the solution with one mistake students make.
__kernel void vadd(__global const float* a,
                   __global const float* b,
                   __global float* c,
                   const unsigned int count)
{
    const size_t i = get_local_id(0) /* planted bug */;
    // The global size is often rounded up to a multiple of the work-group size, so some
    // work-items have no element: without this test they would write past the end of c.
    if (i < count) {
        c[i] = a[i] + b[i];
    }
}
