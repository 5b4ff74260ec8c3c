// A contest entry: one work-item per element of C (exercise 05's kernel) in 8 x 8 groups.
// contest: global = roundup(N, 8), roundup(N, 8)
// contest: local = 8, 8
__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C) {
    const int col = get_global_id(0), row = get_global_id(1);
    if (row < N && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < N; k++) sum += A[row * N + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}
