// GPU experiment only: rung 18's solution with each float4 stored to local memory as soon as it is loaded
// (the planted bug 18_sgemm_transpose.loads_interleaved), not a teaching file.
// Exercise 18 solution: a bigger register block. A work-group of 16 x 16 work-items computes a
// 128 x 256 block of C, each work-item 8 rows x 16 columns of it: 128 sums in 32 float4s. At each
// step k it reads 8 values of A and 16 of B from local memory (six float4 reads) and does 128
// multiply-adds with them, 21 per read where exercise 17 did 6.4 (8 scalar reads of A, 2 float4s
// of B, 64 multiply-adds).
//
// Two things make the bigger block pay, and both are about the 8 x 16 shape:
//  - The A tile is stored transposed: a work-item's 8 rows are neighbours, so at step k its 8
//    values of A are 8 neighbouring floats of one k-row of the tile, two float4 reads. PAD floats
//    after each k-row keep every k-row a whole number of float4s and spread the transposing
//    stores over more banks of local memory.
//  - Every global load of a work-item's share of a tile is issued before any of it is stored to
//    local memory (fetch_tiles, then put_tiles). With 128 sums, about 240 registers a work-item,
//    one work-group is all a compute unit of the H100 holds: no other group runs while this one
//    waits for global memory. A GPU waits for a load only where its value is first used, so six
//    loads issued together cost one wait; exercise 17's loop (load a float4, store it, load the
//    next) waits six times, and the 8 x 16 kernel written that way was slower than exercise 17.
//
// Shapes come as build options (launch.hpp chooses 128 x 256, 8 x 16 per work-item, or 128 x 128,
// 8 x 8, by N): a TSM x TSN block of C per group, tiles TSK deep,
// WPTM x WPTN elements per work-item, PAD floats of padding; the group is (TSN / WPTN) x
// (TSM / WPTM) work-items. Which elements a work-item owns:
//  - rows lr*WPTM .. lr*WPTM + WPTM-1 of the block (neighbours, for the float4 reads of A);
//  - WPTN / 4 float4s of columns, float4 number lc + j*RTSN of the block's row (j = 0, 1, ...):
//    neighbouring work-items read neighbouring float4s of the B tile (no bank conflicts) and
//    write neighbouring float4s of C (whole segments of memory). Sixteen neighbouring columns
//    per work-item would put neighbours 64 bytes apart: four of them on each bank.
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

    float4 ra[LOADS_A], rb[LOADS_B];  // this work-item's share of a tile, on its way to local memory
    const int tiles = (N + TSK - 1) / TSK;
    for (int t = 0; t < tiles; t++) {
#pragma unroll
        for (int l = 0; l < LOADS_A; l++) {
            const int q = id + l * THREADS;
            const int r = q / (TSK / 4), k4 = 4 * (q % (TSK / 4));
            const float4 a = load4(A, N, first_row + r, t * TSK + k4);
            __local float* At = (__local float*)AwrkT;
            At[(k4 + 0) * AK + r] = a.x;
            At[(k4 + 1) * AK + r] = a.y;
            At[(k4 + 2) * AK + r] = a.z;
            At[(k4 + 3) * AK + r] = a.w;
        }
#pragma unroll
        for (int l = 0; l < LOADS_B; l++) {
            const int q = id + l * THREADS;
            Bwrk[q] = load4(B, N, t * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them

#pragma unroll
        for (int k = 0; k < TSK; k++) {
            // This work-item's WPTM rows of column k of A: neighbours in k-row k, WPTM / 4 float4s.
            float a[WPTM];
#pragma unroll
            for (int i = 0; i < WPTM / 4; i++) {
                const float4 v = AwrkT[(k * AK + lr * WPTM) / 4 + i];
                a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
            // Its WPTN columns of row k of B: WPTN / 4 float4s, RTSN float4s apart.
            float4 b[WPTN / 4];
#pragma unroll
            for (int j = 0; j < WPTN / 4; j++) b[j] = Bwrk[k * (TSN / 4) + j * RTSN + lc];
            // WPTM x WPTN multiply-adds from WPTM + WPTN values, written as fma(): 1.04-1.05x faster
            // than `acc += a * b` on the H100 (bench/results/2026-11-26-h100-track-fma).
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < WPTN / 4; j++) acc[i][j] = fma((float4)(a[i]), b[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next are stored
    }
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < WPTN / 4; j++)
            store4(C, N, first_row + lr * WPTM + i, first_col + 4 * (j * RTSN + lc), acc[i][j]);
}
