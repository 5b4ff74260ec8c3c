// Exercise 07 solution: one work-item per row of C.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    const int i = get_global_id(0);
    // No barrier follows, so work-items past the last row can simply leave.
    if (i >= N) {
        return;
    }
    for (int j = 0; j < N; j++) {
        // Row i of A is read N times, once per column: the next two rungs keep it closer.
        float sum = 0.0f;
        for (int k = 0; k < N; k++) {
            sum += A[i * N + k] * B[k * N + j];
        }
        C[i * N + j] = sum;
    }
}
