// Kernels for the broker's tests. The secret is never in this file: it is vadd_secret's last
// argument, which only the broker sets (the client sees a kernel of four arguments).
kernel void vadd_secret(global const uint* a, global const uint* b, global uint* c, const uint n,
                        const uint workbook_secret) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i] + workbook_secret;
}

// C = A B for n x n matrices, n a multiple of the 8 x 8 tile, tiles staged in local memory.
kernel void matmul_tiled(const int n, global const float* a, global const float* b, global float* c,
                         local float* ta, local float* tb) {
    const int row = get_global_id(1), col = get_global_id(0);
    const int lr = get_local_id(1), lc = get_local_id(0);
    float sum = 0.0f;
    for (int t = 0; t < n; t += 8) {
        ta[lr * 8 + lc] = a[row * n + t + lc];
        tb[lr * 8 + lc] = b[(t + lr) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 8; ++k) sum += ta[lr * 8 + k] * tb[k * 8 + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = sum;
}

kernel void scale(global float* x, const float factor) {
    x[get_global_id(0)] *= factor;
}
