// Exercise 02: vector addition, one work-item per element: c[i] = a[i] + b[i] for i < count.
// The signature is fixed: the host code and the graded test call it exactly like this.
__kernel void vadd(__global const float* a,
                   __global const float* b,
                   __global float* c,
                   const unsigned int count)
{
    // TODO: ask OpenCL which element this work-item handles (get_global_id(0)).
    // TODO: the host may start more work-items than there are elements; only those whose index
    //       is below count may read or write memory.
    // TODO: store a[i] + b[i] into c[i].
}
