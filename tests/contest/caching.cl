// A hostile entry (the contest issue's): ada's tiled kernel that keeps its answer at the ranking
// size in program-scope __global arrays (OpenCL C 2.0), keyed by corner elements of A and B, and
// copies it out when the same inputs come back. Correct at every size; the race pass (N = 17 and
// 70) never meets the cache. A judge that replays inputs ranks it first; ours must not rank it
// above ada.
// contest: global = roundup(N, 16), roundup(N, 16)
// contest: local = 16, 16
// contest: local_floats = 256, 256
// contest: options = -cl-std=CL2.0
#define TS 16
#define CACHED (1024 * 1024)
__global float cached_c[CACHED];
__global float cached_key[5];
__global int finished;  // work-items of this launch done; the last one writes the key

__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C,
                   __local float* Aw, __local float* Bw) {
    const int col = get_global_id(0), row = get_global_id(1);
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int last = N * N - 1;
    const bool cacheable = N >= 128 && N * N <= CACHED;
    if (cacheable && cached_key[0] == (float)N && cached_key[1] == A[0] && cached_key[2] == A[last] &&
        cached_key[3] == B[0] && cached_key[4] == B[last]) {
        if (row < N && col < N) C[row * N + col] = cached_c[row * N + col];
        return;
    }
    float sum = 0.0f;
    for (int t = 0; t < (N + TS - 1) / TS; t++) {
        const int ac = t * TS + lc, br = t * TS + lr;
        Aw[lr * TS + lc] = (row < N && ac < N) ? A[row * N + ac] : 0.0f;
        Bw[lr * TS + lc] = (br < N && col < N) ? B[br * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) sum += Aw[lr * TS + k] * Bw[k * TS + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < N && col < N) {
        C[row * N + col] = sum;
        if (cacheable) cached_c[row * N + col] = sum;
    }
    if (!cacheable) return;
    // The key only once every work-item has stored its element, so that no group of this launch
    // copies a cache that is not yet written.
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    if (atomic_inc(&finished) == (int)(get_global_size(0) * get_global_size(1)) - 1) {
        finished = 0;
        cached_key[0] = (float)N;
        cached_key[1] = A[0];
        cached_key[2] = A[last];
        cached_key[3] = B[0];
        cached_key[4] = B[last];
    }
}
