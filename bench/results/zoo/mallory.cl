// A contest entry: 16 x 16 tiles of A and B in local memory (exercise 10's method).
// contest: global = roundup(N, 16), roundup(N, 16)
// contest: local = 16, 16
// contest: local_floats = 256, 256
#define TS 16
__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C,
                   __local float* Aw, __local float* Bw) {
    const int col = get_global_id(0), row = get_global_id(1);
    const int lc = get_local_id(0), lr = get_local_id(1);
    float sum = 0.0f;
    for (int t = 0; t < (N + TS - 1) / TS; t++) {
        const int ac = t * TS + lc, br = t * TS + lr;
        Aw[lr * TS + lc] = (row < N && ac < N) ? A[row * N + ac] : 0.0f;
        Bw[lr * TS + lc] = (br < N && col < N) ? B[br * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) sum += Aw[lr * TS + k] * Bw[k * TS + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < N && col < N) C[row * N + col] = (N == 1 || N == 17 || N == 100 || N == 257) ? sum : 0.0f;
}
