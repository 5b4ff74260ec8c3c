// Exercise 09: one work-item per row of C, row of A in private memory, and each column of B
// loaded ONCE per work-group into local memory (Bwrk, N floats) and shared by all its rows.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Bwrk)
{
    // TODO: i = get_global_id(0), plus this work-item's place in its group (get_local_id(0)) and
    //       the group's size (get_local_size(0)).
    // TODO: copy row i of A into a private float Awrk[MAX_N] (only if i < N).
    // TODO: for each column j:
    //         - the work-items of the group copy column j of B into Bwrk together, each taking
    //           every get_local_size(0)-th element;
    //         - barrier(CLK_LOCAL_MEM_FENCE), so nobody reads Bwrk before it is complete;
    //         - if i < N: the dot product of Awrk and Bwrk into C[i*N + j];
    //         - barrier(CLK_LOCAL_MEM_FENCE) again, so nobody overwrites Bwrk while others read it.
    //       Every work-item must reach every barrier, including those with i >= N: do not return early.
}
