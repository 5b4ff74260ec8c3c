// Planted bug "lost_precision" for the course check: the solution with one mistake students make.
__kernel void vadd(__global const float* a,
                   __global const float* b,
                   __global float* c,
                   const unsigned int count)
{
    const size_t i = get_global_id(0);
    // The global size is often rounded up to a multiple of the work-group size, so some
    // work-items have no element: without this test they would write past the end of c.
    if (i < count) {
        // Planted bug: the sum goes through a 16-bit half on its way to c.
        ushort h;
        vstore_half(a[i] + b[i], 0, (__private half*)&h);
        c[i] = vload_half(0, (__private half*)&h);
    }
}
