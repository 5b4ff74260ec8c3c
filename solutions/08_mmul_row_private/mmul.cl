// Exercise 08 solution: one work-item per row of C, row of A in private memory, and each pass over
// that private row serving four columns of C.
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
    // per-thread off-chip memory that the caches serve. Row i of A is now read from global memory
    // once instead of once per column.
    float Awrk[MAX_N];
    for (int k = 0; k < N; k++) {
        Awrk[k] = A[i * N + k];
    }
    // The straightforward next step, one column at a time, reads each Awrk[k] N times. Taking four
    // columns per pass uses each Awrk[k] for four multiply-adds, and the four B values it meets sit
    // side by side in one cache line: on a CPU about four times faster than one column per pass.
    int j = 0;
    for (; j + 3 < N; j += 4) {
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (int k = 0; k < N; k++) {
            const float a = Awrk[k];
            const int b = k * N + j;
            s0 += a * B[b];
            s1 += a * B[b + 1];
            s2 += a * B[b + 2];
            s3 += a * B[b + 3];
        }
        C[i * N + j] = s0;
        C[i * N + j + 1] = s1;
        C[i * N + j + 2] = s2;
        C[i * N + j + 3] = s3;
    }
    // The last N % 4 columns, one at a time.
    for (; j < N; j++) {
        float sum = 0.0f;
        for (int k = 0; k < N; k++) {
            sum += Awrk[k] * B[k * N + j];
        }
        C[i * N + j] = sum;
    }
}
