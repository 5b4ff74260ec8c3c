// Exercise 16, a correct variant (tests/variants): a float4 of C in two rows, written another way.
// The two rows are neighbours (2*lr and 2*lr + 1), not half a tile apart, and their sums travel
// as one float8 (lo the first row, hi the second): each step k is one float8 multiply-add of
// (a0 a0 a0 a0 a1 a1 a1 a1) by (b b). The tiles load as a flat list of float4s, number id and
// id + 128 of each tile, rows of eight float4s. Still the lesson: global loads, reads of the B
// tile, sums and stores four floats at a time, the float4 path only where the alignment allows it.
// Edges: loads outside the matrix give zeros, stores outside it are skipped; every work-item
// reaches both barriers.
#define TSV (TS / 4)                                  // float4s in a row of a tile
#define THREADS (TSV * RTS)                           // the work-group: 8 x 16
#if TS % 4 || (TS * TSV) % THREADS
#error "each tile must split into whole float4s per work-item"
#endif

// Four floats of M from (row, col), col a multiple of 4; zeros outside the matrix. Every row starts
// on a 16-byte boundary only when N % 4 == 0: then a float4 is wholly inside or outside, one load.
float4 get4(__global const float* M, const int N, const int row, const int col)
{
    float4 v = (float4)(0.0f);
    if (row >= N || col >= N) return v;
    __global const float* p = M + row * N + col;
    if (N % 4 == 0) return *(__global const float4*)p;
    v.x = p[0];
    if (col + 1 < N) v.y = p[1];
    if (col + 2 < N) v.z = p[2];
    if (col + 3 < N) v.w = p[3];
    return v;
}

// Four floats into M at (row, col): only those inside the matrix.
void put4(__global float* M, const int N, const int row, const int col, const float4 v)
{
    if (row >= N || col >= N) return;
    __global float* p = M + row * N + col;
    if (N % 4 == 0) {
        *(__global float4*)p = v;
    } else {
        const float e[4] = {v.x, v.y, v.z, v.w};
        for (int c = 0; c < 4 && col + c < N; c++) p[c] = e[c];
    }
}

__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* Awrk,
                   __local float4* Bwrk)
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int id = lr * TSV + lc;
    const int row0 = get_group_id(1) * TS, col0 = get_group_id(0) * TS;
    const int r0 = 2 * lr;  // this work-item's rows in the block: r0 and r0 + 1
    __local const float* As = (__local const float*)Awrk;

    float8 acc = (float8)(0.0f);
    for (int k0 = 0; k0 < N; k0 += TS) {
        for (int q = id; q < TS * TSV; q += THREADS) {
            const int r = q / TSV, c = 4 * (q % TSV);
            Awrk[q] = get4(A, N, row0 + r, k0 + c);
            Bwrk[q] = get4(B, N, k0 + r, col0 + c);
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles whole before anyone reads them

        for (int k = 0; k < TS; k++) {
            const float4 b = Bwrk[k * TSV + lc];
            const float8 a = (float8)((float4)(As[r0 * TS + k]), (float4)(As[(r0 + 1) * TS + k]));
            acc = mad(a, (float8)(b, b), acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading before the next tiles go in
    }
    put4(C, N, row0 + r0, col0 + 4 * lc, acc.lo);
    put4(C, N, row0 + r0 + 1, col0 + 4 * lc, acc.hi);
}
