// ABLATION of r18.cl: the first version, loads and stores interleaved per float4.
// Rung 18 solution: a bigger register block, 8 rows x 16 columns of C per work-item, with the A
// tile stored transposed in local memory. A work-group of 16 x 16 work-items computes a
// 128 x 256 block of C. Per step k a work-item reads 8 floats of A (two float4s, its rows are
// neighbours in the transposed tile) and 16 of B (four float4s) from local memory and does 128
// multiply-adds with them: 21 per local read (float4), against 16 in an 8 x 8 block and 6.4 with
// exercise 17's scalar reads of A.
//
// Shapes are build options: a TSM x TSN block of C per work-group, tiles TSK deep along k,
// WPTM x WPTN elements per work-item (both multiples of 4), PAD floats of padding after each
// k-row of the transposed A tile (a multiple of 4, so every k-row starts on a float4).
// The work-group is (TSN / WPTN) x (TSM / WPTM) work-items; the global size is N rounded up to
// the block, divided by WPTN (dimension 0, the columns) and WPTM (dimension 1, the rows).
// The two tiles are __local kernel arguments, as in exercises 17 to 19: TSK * (TSM + PAD)
// floats of A and TSK * TSN floats of B (128 x 256 x 16, PAD 4: 8448 + 16384 bytes).
//
// Which elements a work-item owns:
//  - rows lr*WPTM .. lr*WPTM + WPTM-1 of the block: neighbours, so at each k they are WPTM
//    neighbouring floats of the transposed A tile (WPTM / 4 float4 reads). The 32 work-items of
//    a warp share two values of lr, so these reads are broadcasts: no bank conflicts.
//  - columns 4*lc + j*(TSN / (WPTN/4)) for j = 0 .. WPTN/4 - 1: four float4s, a quarter of the
//    block apart (TSN / 4 = 64 columns). Neighbouring work-items then read neighbouring float4s
//    of the B tile (no bank conflicts) and store neighbouring float4s of C (coalesced). Sixteen
//    neighbouring columns per work-item would put neighbours 64 bytes apart: a 4-way conflict.
#define RTSM (TSM / WPTM)              // work-items down the block (dimension 1)
#define RTSN (TSN / WPTN)              // work-items across the block (dimension 0)
#define THREADS (RTSM * RTSN)          // the work-group's size
#define COLS4 (WPTN / 4)               // float4s of columns per work-item
#define ROWS4 (WPTM / 4)               // float4s of A per work-item per k
#define AK (TSM + PAD)                 // floats per k-row of the transposed A tile
#define LOADS_A (TSM * TSK / 4 / THREADS)  // float4s of the A tile each work-item loads
#define LOADS_B (TSK * TSN / 4 / THREADS)  // and of the B tile
#if WPTM % 4 || WPTN % 4 || PAD % 4 || TSK % 4 || (TSM * TSK / 4) % THREADS || (TSK * TSN / 4) % THREADS
#error "WPTM, WPTN, PAD, TSK must be multiples of 4, and the group must load whole float4s of each tile"
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

// Work-item `id`'s share of tile t of A and of B, global memory to registers: LOADS_A float4s of
// A (row-major, as they are in A) and LOADS_B float4s of B. All of them are loaded before any
// is stored (put_tiles): a load does not stall the work-item until its value is used, so the
// six loads of a 128 x 256 x 16 tile pair are in flight together and the work-item waits about
// one global-memory latency per tile. Storing each float4 right after its load (exercise 17's
// loop) waits one latency per float4: at 8 warps per compute unit (249 registers per
// work-item leave room for one work-group) that cost a third of the speed on the H100.
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

// The same share, registers to one buffer of local memory: A transposed, B as it is.
void put_tiles(const int id, const float4 ra[LOADS_A], const float4 rb[LOADS_B],
               __local float* At, __local float4* Bt)
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
          __local float4* AwrkT,   // TSK k-rows of AK floats: element (r, k) at [k * AK + r]
          __local float4* Bwrk)    // TSK rows of TSN / 4 float4s, as in B
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int id = lr * RTSN + lc;                         // 0 .. THREADS-1, for the loads
    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;
    __local float* At = (__local float*)AwrkT;

    float4 acc[WPTM][COLS4];
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < COLS4; j++) acc[i][j] = (float4)(0.0f);

    float4 ra[LOADS_A], rb[LOADS_B];  // this work-item's share of the tiles, on their way in
    const int tiles = (N + TSK - 1) / TSK;
    for (int t = 0; t < tiles; t++) {
        // The A tile: TSM rows of TSK / 4 float4s, each float4 transposed on the way in, to four
        // k-rows of the tile; the B tile: TSK rows of TSN / 4 float4s, stored as they are.
        // Neighbouring ids load neighbouring float4s of a row.
        // ABLATION (not a teaching file): each float4 stored right after its load.
#pragma unroll
        for (int l = 0; l < LOADS_A; l++) {
            const int q = id + l * THREADS;
            const int r = q / (TSK / 4), k4 = 4 * (q % (TSK / 4));
            const float4 a = load4(A, N, first_row + r, t * TSK + k4);
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
            // This work-item's WPTM rows of column k of A: ROWS4 aligned float4 reads.
            float a[WPTM];
#pragma unroll
            for (int i = 0; i < ROWS4; i++) {
                const float4 v = AwrkT[(k * AK + lr * WPTM) / 4 + i];
                a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
            // Its WPTN columns of row k of B: COLS4 float4s, RTSN float4s apart.
            float4 b[COLS4];
#pragma unroll
            for (int j = 0; j < COLS4; j++) b[j] = Bwrk[k * (TSN / 4) + j * RTSN + lc];
            // WPTM x WPTN multiply-adds from WPTM + WPTN values.
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < COLS4; j++) acc[i][j] += a[i] * b[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load
    }
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < COLS4; j++)
            store4(C, N, first_row + lr * WPTM + i, first_col + 4 * (j * RTSN + lc), acc[i][j]);
}
