// Exercise 07: C = A·B with one work-item per ROW of C, on a 1D range.
// Fewer, longer work-items: each one runs the j and k loops of the serial code for its row i.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    // TODO: i = get_global_id(0) is this work-item's row; rows past N (the global size is rounded
    //       up to the work-group size) do nothing.
    // TODO: for every column j, the dot product of row i of A and column j of B into C[i*N + j].
}
