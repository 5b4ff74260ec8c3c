// A contest entry: 32 x 32 tiles in local memory, each work-item computing a 2 x 2 block of C
// (four sums from each pair of values read), built with -cl-fast-relaxed-math -cl-mad-enable.
// contest: global = cdiv(N, 32) * 16, cdiv(N, 32) * 16
// contest: local = 16, 16
// contest: local_floats = 1024, 1024
// contest: options = -cl-fast-relaxed-math -cl-mad-enable
#define T 32
__kernel void mmul(const int N, __global const float* A, __global const float* B, __global float* C,
                   __local float* As, __local float* Bs) {
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int row0 = get_group_id(1) * T, col0 = get_group_id(0) * T;
    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int k0 = 0; k0 < N; k0 += T) {
        // Each work-item copies four elements of each tile; zeros outside the matrices.
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                const int r = ty + 16 * dy, c = tx + 16 * dx;
                As[r * T + c] = (row0 + r < N && k0 + c < N) ? A[(row0 + r) * N + k0 + c] : 0.0f;
                Bs[r * T + c] = (k0 + r < N && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : 0.0f;
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < T; k++) {
            const float a0 = As[ty * T + k], a1 = As[(ty + 16) * T + k];
            const float b0 = Bs[k * T + tx], b1 = Bs[k * T + tx + 16];
            c00 += a0 * b0; c01 += a0 * b1; c10 += a1 * b0; c11 += a1 * b1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int r0 = row0 + ty, r1 = row0 + ty + 16, j0 = col0 + tx, j1 = col0 + tx + 16;
    if (r0 < N && j0 < N) C[r0 * N + j0] = c00;
    if (r0 < N && j1 < N) C[r0 * N + j1] = c01;
    if (r1 < N && j0 < N) C[r1 * N + j0] = c10;
    if (r1 < N && j1 < N) C[r1 * N + j1] = c11;
}
