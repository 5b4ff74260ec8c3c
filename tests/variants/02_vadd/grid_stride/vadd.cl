// A correct vadd in another style: a grid-stride loop. Each work-item takes every
// get_global_size(0)-th element, so any global size covers any count, larger or smaller.
__kernel void vadd(__global const float* a,
                   __global const float* b,
                   __global float* c,
                   const unsigned int count)
{
    for (size_t i = get_global_id(0); i < count; i += get_global_size(0)) {
        c[i] = a[i] + b[i];
    }
}
