// Exercise 09 solution: row of A in private memory, column of B shared in local memory.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Bwrk)
{
    const int i = get_global_id(0);
    const int iloc = get_local_id(0);
    const int nloc = get_local_size(0);
    // Work-items past the last row still take part: they help load Bwrk and they must reach
    // every barrier, because a barrier waits for every work-item of the group.
    const bool has_row = i < N;

    float Awrk[MAX_N];
    if (has_row) {
        for (int k = 0; k < N; k++) {
            Awrk[k] = A[i * N + k];
        }
    }
    for (int j = 0; j < N; j++) {
        // Each work-item copies every nloc-th element: the column arrives in N / nloc steps
        // instead of being read from global memory by every row.
        for (int k = iloc; k < N; k += nloc) {
            Bwrk[k] = B[k * N + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // Bwrk is complete
        if (has_row) {
            float sum = 0.0f;
            for (int k = 0; k < N; k++) {
                sum += Awrk[k] * Bwrk[k];
            }
            C[i * N + j] = sum;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done with this column before the next load
    }
}
