// Exercise 19 solution: exercise 18's kernel with two buffers for each tile. While the group
// multiplies the tiles in one buffer, it loads the next tiles into the other: the global loads of
// step t + 1 are issued before the multiply-adds of step t, so their latency hides behind
// arithmetic, and one barrier per step suffices instead of two.

// As in exercise 16: four floats of row `row` of M from column `col` (a multiple of 4), zeros
// outside the matrix, one aligned float4 load when every row starts on a 16-byte boundary.
float4 load4(__global const float* M, const int N, const int row, const int col)
{
    if (row >= N) return (float4)(0.0f);
    __global const float* p = M + row * N + col;
    if (N % 4 == 0 && col < N) return *(__global const float4*)p;
    return (float4)(col < N ? p[0] : 0.0f, col + 1 < N ? p[1] : 0.0f,
                    col + 2 < N ? p[2] : 0.0f, col + 3 < N ? p[3] : 0.0f);
}

void store4(__global float* M, const int N, const int row, const int col, const float4 v)
{
    if (row >= N || col >= N) return;
    __global float* p = M + row * N + col;
    if (N % 4 == 0) {
        *(__global float4*)p = v;
        return;
    }
    p[0] = v.x;
    if (col + 1 < N) p[1] = v.y;
    if (col + 2 < N) p[2] = v.z;
    if (col + 3 < N) p[3] = v.w;
}

// Fills buffer `buf` with tile t of A (transposed, padded) and of B: the loads of exercise 18.
void load_tiles(__global const float* A, __global const float* B, const int N, const int t, const int id, const int threads,
                const int first_row, const int first_col, __local float* At, __local float4* Bwrk)
{
    for (int q = id; q < TSM * TSK / 4; q += threads) {
        const int r = q / (TSK / 4), k4 = 4 * (q % (TSK / 4));
        const float4 a = load4(A, N, first_row + r, t * TSK + k4);
        At[(k4 + 0) * (TSM + PAD) + r] = a.x;
        At[(k4 + 1) * (TSM + PAD) + r] = a.y;
        At[(k4 + 2) * (TSM + PAD) + r] = a.z;
        At[(k4 + 3) * (TSM + PAD) + r] = a.w;
        Bwrk[q] = load4(B, N, t * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
    }
}

// As exercise 18, and AwrkT, Bwrk hold two tiles each, one after the other.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* AwrkT,
                   __local float4* Bwrk)
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int threads = (TSN / 8) * (TSM / WPTM);           // the work-group's size
    const int id = lr * (TSN / 8) + lc;                    // 0 .. threads-1, for the loads
    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;
    const int a_floats = TSK * (TSM + PAD), b_float4s = TSK * TSN / 4;  // one buffer of each

    float4 acc[WPTM][2];
    for (int i = 0; i < WPTM; i++) acc[i][0] = acc[i][1] = (float4)(0.0f);

    const int tiles = (N + TSK - 1) / TSK;
    load_tiles(A, B, N, 0, id, threads, first_row, first_col, (__local float*)AwrkT, Bwrk);
    barrier(CLK_LOCAL_MEM_FENCE);  // the first tiles complete
    for (int t = 0; t < tiles; t++) {
        const int now = t % 2;  // the buffer holding tile t; the other one is free
        // The free buffer was last read in step t - 1, and every work-item passed the barrier
        // at its end since: safe to fill it with tile t + 1 now.
        if (t + 1 < tiles)
            load_tiles(A, B, N, t + 1, id, threads, first_row, first_col, (__local float*)AwrkT + (1 - now) * a_floats,
                       Bwrk + (1 - now) * b_float4s);
        __local const float4* At4 = AwrkT + now * a_floats / 4;
        __local const float4* Bt = Bwrk + now * b_float4s;
        for (int k = 0; k < TSK; k++) {
            // This work-item's eight columns of row k of B: two float4s, TSN / 2 columns apart.
            const float4 b0 = Bt[k * (TSN / 4) + lc], b1 = Bt[k * (TSN / 4) + lc + TSN / 8];
            const float4 a_lo = At4[(k * (TSM + PAD) + lr * WPTM) / 4];
            const float4 a_hi = At4[(k * (TSM + PAD) + lr * WPTM) / 4 + 1];
            const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            for (int i = 0; i < WPTM; i++) {
                acc[i][0] += a[i] * b0;
                acc[i][1] += a[i] * b1;
            }
        }
        // One barrier: tile t + 1 is complete, and nobody reads buffer `now` any more, so the
        // next step may fill it.
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < WPTM; i++) {
        const int row = first_row + lr * WPTM + i;
        store4(C, N, row, first_col + 4 * lc, acc[i][0]);
        store4(C, N, row, first_col + TSN / 2 + 4 * lc, acc[i][1]);
    }
}
