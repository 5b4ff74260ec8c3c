// A correct kernel without rung 17's register reuse: exercise 17's solution, except that a
// work-item reads its two float4s of B from the local tile again for each of its WPTM rows instead
// of once per step k. Unoptimised, it reads more local bytes per multiply-add than exercise 16's
// kernel, so where the speed check is waived (PoCL) the traffic rule fails it
// (tests/traffic/figures.txt: 17 local).

// Exercise 17 solution: 2D register blocking. A work-group of 16 x 16 work-items computes a
// 128 x 128 block of C; each work-item 64 elements of it, held in sixteen float4 sums (eight rows,
// two float4s of columns). Per step k it reads 8 floats of A and 2 float4s of B from local memory
// and does 64 multiply-adds with them: 6.4 per local read, against 2.7 in exercise 16.

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

// A TSM x TSN block of C per group (TSM == TSN), tiles TSK deep along k; each work-item WPTM
// rows, RTSM apart, and two float4s of columns, TSN / 2 apart (so neighbouring work-items read
// neighbouring float4s of B).
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* Awrk,
                   __local float4* Bwrk)
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int threads = (TSN / 8) * (TSM / WPTM);           // the work-group's size
    const int id = lr * (TSN / 8) + lc;                    // 0 .. threads-1, for the loads
    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;
    __local const float* As = (__local const float*)Awrk;  // the A tile, TSM rows of TSK floats

    float4 acc[WPTM][2];
    for (int i = 0; i < WPTM; i++) acc[i][0] = acc[i][1] = (float4)(0.0f);

    const int tiles = (N + TSK - 1) / TSK;
    for (int t = 0; t < tiles; t++) {
        // The A tile (TSM x TSK floats) and the B tile (TSK x TSN) hold as many float4s each
        // (the block is square); the group loads them together, neighbouring ids on
        // neighbouring addresses.
        for (int q = id; q < TSM * TSK / 4; q += threads) {
            Awrk[q] = load4(A, N, first_row + q / (TSK / 4), t * TSK + 4 * (q % (TSK / 4)));
            Bwrk[q] = load4(B, N, t * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them

        for (int k = 0; k < TSK; k++) {
            // This work-item's eight columns of row k of B: two float4s, TSN / 2 columns apart.
            for (int i = 0; i < WPTM; i++) {
                const float4 b0 = Bwrk[k * (TSN / 4) + lc], b1 = Bwrk[k * (TSN / 4) + lc + TSN / 8];
                const float a = As[(lr + i * RTSM) * TSK + k];
                acc[i][0] += a * b0;
                acc[i][1] += a * b1;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load
    }
    for (int i = 0; i < WPTM; i++) {
        const int row = first_row + lr + i * RTSM;
        store4(C, N, row, first_col + 4 * lc, acc[i][0]);
        store4(C, N, row, first_col + TSN / 2 + 4 * lc, acc[i][1]);
    }
}
