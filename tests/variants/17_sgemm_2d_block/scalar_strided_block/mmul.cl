// Exercise 17, a correct variant (tests/variants): the same 8 x 8 register block per work-item,
// written another way. Its columns are scalars 16 apart (lc + 16*j), like its rows, so the sums
// are 64 plain floats, acc[j][i] with the column first. The k loop goes four steps at a time: one
// float4 read gives a row's four values of A, then each step reads eight scalars of B. Local bytes
// per multiply-add stay the solution's 1.0 (8 float4s of A and 32 floats of B per 256 of them).
// The tiles load by another split: two work-items per row of the A tile (32 contiguous bytes
// each), and work-item (lc, lr) takes row lr of the B tile, float4s lc and lc + 16.
// Edges: loads outside the matrix give zeros, stores outside are skipped; every work-item reaches
// both barriers.
#define THREADS ((TSN / 8) * (TSM / WPTM))  // the work-group: 16 x 16
#define A_SPLIT (THREADS / TSM)              // work-items on one row of the A tile
#define A_RUN ((TSK / 4) / A_SPLIT)          // float4s each of them loads, side by side
#define COLS (TSN / 8)                       // work-items across the block, and their column stride
#if THREADS % TSM || (TSK / 4) % A_SPLIT || A_RUN < 1 || TSK % 4 || TSN % 8
#error "each row of the A tile must split into whole float4s over THREADS / TSM work-items"
#endif

// Four floats of row `row` of M from column `col` (a multiple of 4); zeros past the edges.
float4 fetch4(__global const float* M, const int N, const int row, const int col)
{
    float4 v = (float4)(0.0f);
    if (row < N) {
        __global const float* p = M + row * N;
        if ((N & 3) == 0) {  // rows start 16-byte aligned: a float4 is wholly in or wholly out
            if (col < N) v = *(__global const float4*)(p + col);
        } else {
            if (col < N) v.x = p[col];
            if (col + 1 < N) v.y = p[col + 1];
            if (col + 2 < N) v.z = p[col + 2];
            if (col + 3 < N) v.w = p[col + 3];
        }
    }
    return v;
}

__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* Awrk,   // TSM rows of TSK floats
                   __local float4* Bwrk)   // TSK rows of TSN floats
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int id = lr * COLS + lc;
    const int row0 = get_group_id(1) * TSM, col0 = get_group_id(0) * TSN;
    __local const float* Bs = (__local const float*)Bwrk;

    // For the A tile: this work-item's row and its first float4 in that row.
    const int a_row = id / A_SPLIT, a_first = (id % A_SPLIT) * A_RUN;

    float acc[8][WPTM];  // [column j][row i]: element (row0 + lr + RTSM*i, col0 + lc + COLS*j)
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int i = 0; i < WPTM; i++) acc[j][i] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += TSK) {
#pragma unroll
        for (int u = 0; u < A_RUN; u++)
            Awrk[a_row * (TSK / 4) + a_first + u] = fetch4(A, N, row0 + a_row, k0 + 4 * (a_first + u));
        for (int r = lr; r < TSK; r += TSM / WPTM)
            for (int c = lc; c < TSN / 4; c += COLS)
                Bwrk[r * (TSN / 4) + c] = fetch4(B, N, k0 + r, col0 + 4 * c);
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles whole before anyone reads them

#pragma unroll
        for (int k4 = 0; k4 < TSK / 4; k4++) {
            float4 a[WPTM];  // four steps of k for each of the work-item's rows
#pragma unroll
            for (int i = 0; i < WPTM; i++) a[i] = Awrk[(lr + RTSM * i) * (TSK / 4) + k4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                __local const float* brow = Bs + (4 * k4 + u) * TSN + lc;
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    const float b = brow[COLS * j];
#pragma unroll
                    for (int i = 0; i < WPTM; i++) {
                        const float av = u == 0 ? a[i].x : u == 1 ? a[i].y : u == 2 ? a[i].z : a[i].w;
                        acc[j][i] = mad(av, b, acc[j][i]);
                    }
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading before the next tiles go in
    }

#pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = row0 + lr + RTSM * i;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int col = col0 + lc + COLS * j;
            if (row < N && col < N) C[row * N + col] = acc[j][i];
        }
    }
}
