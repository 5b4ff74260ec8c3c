// Exercise 19: exercise 18's kernel with the next tiles prefetched into registers. Each work-item
// issues the global loads of its share of tile t + 1 before the multiply-adds of tile t and
// stores them into the (single) local tiles after them, between two barriers. The shapes, the
// launch, the helpers and the elements a work-item owns are exercise 18's.
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

// Given: exercise 18's helpers.
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
    // TODO: exercise 18's positions, sums and registers for the loads (ra, rb).
    // TODO: before the loop: fetch_tiles and put_tiles of tile 0, then barrier(CLK_LOCAL_MEM_FENCE).
    // TODO: for each tile t:
    //         - if t + 1 < tiles: fetch_tiles of tile t + 1 into ra, rb (the loads travel while ...);
    //         - ... exercise 18's k loop multiplies tile t from local memory;
    //         - barrier (everyone done reading tile t); if t + 1 < tiles: put_tiles of tile t + 1;
    //           barrier (tile t + 1 complete before anyone reads it).
    // TODO: exercise 18's stores.
}
