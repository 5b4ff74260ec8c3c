// A correct but unoptimised kernel in exercise 15's geometry: no local memory, every value read
// from global memory for each of the eight sums.
__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C,
                   __local float* Awrk, __local float* Bwrk)
{
    const int col = get_group_id(0) * TS + get_local_id(0);
    for (int w = 0; w < WPT; w++) {
        const int row = get_group_id(1) * TS + get_local_id(1) + w * RTS;
        if (row >= N || col >= N) continue;
        float sum = 0.0f;
        for (int k = 0; k < N; k++) sum += A[row * N + k] * B[k * N + col];
        C[row * N + col] = sum;
    }
}
