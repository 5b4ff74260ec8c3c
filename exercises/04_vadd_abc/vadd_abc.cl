// Exercise 04: d[i] = a[i] + b[i] + c[i] for i < count, one work-item per element.
// The signature is fixed: the host code and the graded test call it exactly like this.
__kernel void vadd_abc(__global const float* a,
                       __global const float* b,
                       __global const float* c,
                       __global float* d,
                       const unsigned int count)
{
    // TODO: the same shape as exercise 02's vadd, with a third input.
}
