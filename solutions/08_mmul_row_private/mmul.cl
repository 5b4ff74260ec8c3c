// Exercise 08 solution: one work-item per row of C, row of A in private memory.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    const int i = get_global_id(0);
    if (i >= N) {
        return;
    }
    // Private memory belongs to this work-item alone. A compiler keeps small private arrays in
    // registers; 4 KiB is far more than a GPU thread's registers, so this array really lives in
    // per-thread off-chip memory that the caches serve. The gain over exercise 07 comes from
    // reading row i of A from global memory once instead of N times.
    float Awrk[MAX_N];
    for (int k = 0; k < N; k++) {
        Awrk[k] = A[i * N + k];
    }
    for (int j = 0; j < N; j++) {
        float sum = 0.0f;
        for (int k = 0; k < N; k++) {
            sum += Awrk[k] * B[k * N + j];
        }
        C[i * N + j] = sum;
    }
}
