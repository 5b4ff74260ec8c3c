// A correct kernel without rung 19's prefetch: exercise 19's solution, except that a work-item
// issues the loads of tile t + 1 after the multiply-adds of tile t, not before them. Its loads are
// exercise 18's, in exercise 18's order, so where the speed check is waived (PoCL) the traffic
// rule fails it (tests/traffic/figures.txt: 19 exposed).

// Exercise 19 solution: exercise 18's kernel with the next tiles prefetched into registers. Each
// work-item issues the global loads of its share of tile t + 1 (fetch_tiles) *before* the
// multiply-adds of tile t, and stores them to local memory (put_tiles) *after* them. In exercise
// 18 the group stalls once per tile, waiting for its loads, and on the H100 no other group runs
// on its compute unit meanwhile; here the loads travel while the group computes: a GPU waits for
// a load only where its value is first used, and that is now a whole tile of multiply-adds later.
//
// It is exercise 18's loop rotated by half a step, with the same single set of local tiles and
// two barriers per tile: nobody may overwrite tile t in local memory until everyone has finished
// reading it, and nobody may read tile t + 1 until everyone has stored their share. Two sets of
// local tiles would save one barrier, but the 128 x 256 x 16 tiles do not fit twice in the 48 KiB
// of local memory NVIDIA's OpenCL offers, and 8-deep tiles in two sets measured slower on the
// H100. The registers that hold the next tile while the group computes cost too: 255 a work-item
// on the H100 (all there are), where exercise 18's kernel needs 238.
//
// Shapes, build options, __local arguments and which elements a work-item owns: as exercise 18.
#define RTSM (TSM / WPTM)                   // work-items down the block (dimension 1)
#define RTSN (TSN / WPTN)                   // work-items across the block (dimension 0)
#define THREADS (RTSM * RTSN)               // the work-group's size
#define AK (TSM + PAD)                      // floats in one k-row of the transposed A tile
#define LOADS_A (TSM * TSK / 4 / THREADS)   // float4s of the A tile each work-item loads
#define LOADS_B (TSK * TSN / 4 / THREADS)   // and of the B tile
#if WPTM % 4 || WPTN % 4 || PAD % 4 || TSK % 4 || LOADS_A < 1 || LOADS_A * THREADS * 4 != TSM * TSK || \
    LOADS_B < 1 || LOADS_B * THREADS * 4 != TSK * TSN
#error "WPTM, WPTN, PAD and TSK must be multiples of 4, and each work-item must load whole float4s of both tiles"
#endif

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

// As in exercise 16: a float4 of C, only its columns inside the matrix.
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

// Work-item `id`'s share of tile t, from global memory into registers: LOADS_A float4s of the A
// tile (TSM rows of TSK / 4 float4s) and LOADS_B of the B tile (TSK rows of TSN / 4 float4s),
// float4 number id, id + THREADS, ... of each, so that neighbouring ids load neighbouring
// float4s of a row. Nothing here uses a loaded value, so all the loads are in flight together.
void fetch_tiles(__global const float* A, __global const float* B, const int N, const int t, const int id,
                 const int first_row, const int first_col, float4 ra[LOADS_A], float4 rb[LOADS_B])
{
#pragma unroll
    for (int l = 0; l < LOADS_A; l++) {
        const int q = id + l * THREADS;
        ra[l] = load4(A, N, first_row + q / (TSK / 4), t * TSK + 4 * (q % (TSK / 4)));
    }
#pragma unroll
    for (int l = 0; l < LOADS_B; l++) {
        const int q = id + l * THREADS;
        rb[l] = load4(B, N, t * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
    }
}

// The same share, from registers into local memory: each float4 of A (row r, columns k4 .. k4 + 3
// of the tile) becomes four floats in four k-rows of the transposed tile; B is stored as it is.
void put_tiles(const int id, const float4 ra[LOADS_A], const float4 rb[LOADS_B], __local float* At,
               __local float4* Bt)
{
#pragma unroll
    for (int l = 0; l < LOADS_A; l++) {
        const int q = id + l * THREADS;
        const int r = q / (TSK / 4), k4 = 4 * (q % (TSK / 4));
        At[(k4 + 0) * AK + r] = ra[l].x;
        At[(k4 + 1) * AK + r] = ra[l].y;
        At[(k4 + 2) * AK + r] = ra[l].z;
        At[(k4 + 3) * AK + r] = ra[l].w;
    }
#pragma unroll
    for (int l = 0; l < LOADS_B; l++) Bt[id + l * THREADS] = rb[l];
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void mmul(const int N,
          __global const float* A,
          __global const float* B,
          __global float* C,
          __local float4* AwrkT,   // the A tile transposed: TSK k-rows of AK floats, (r, k) at [k*AK + r]
          __local float4* Bwrk)    // the B tile as in B: TSK rows of TSN / 4 float4s
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int id = lr * RTSN + lc;  // 0 .. THREADS-1, for the loads
    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;

    float4 acc[WPTM][WPTN / 4];
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < WPTN / 4; j++) acc[i][j] = (float4)(0.0f);

    float4 ra[LOADS_A], rb[LOADS_B];  // this work-item's share of the next tile, in flight
    const int tiles = (N + TSK - 1) / TSK;
    fetch_tiles(A, B, N, 0, id, first_row, first_col, ra, rb);
    put_tiles(id, ra, rb, (__local float*)AwrkT, Bwrk);
    barrier(CLK_LOCAL_MEM_FENCE);  // tile 0 complete
    for (int t = 0; t < tiles; t++) {

#pragma unroll
        for (int k = 0; k < TSK; k++) {
            // As in exercise 18: WPTM rows of column k of A, WPTN columns of row k of B.
            float a[WPTM];
#pragma unroll
            for (int i = 0; i < WPTM / 4; i++) {
                const float4 v = AwrkT[(k * AK + lr * WPTM) / 4 + i];
                a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
            float4 b[WPTN / 4];
#pragma unroll
            for (int j = 0; j < WPTN / 4; j++) b[j] = Bwrk[k * (TSN / 4) + j * RTSN + lc];
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < WPTN / 4; j++) acc[i][j] += a[i] * b[j];
        }

        // The loads of tile t + 1, issued only after tile t's multiply-adds: nothing left to hide them.
        if (t + 1 < tiles) fetch_tiles(A, B, N, t + 1, id, first_row, first_col, ra, rb);
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading tile t before it is overwritten
        if (t + 1 < tiles) put_tiles(id, ra, rb, (__local float*)AwrkT, Bwrk);
        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete before anyone reads it
    }
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < WPTN / 4; j++)
            store4(C, N, first_row + lr * WPTM + i, first_col + 4 * (j * RTSN + lc), acc[i][j]);
}
