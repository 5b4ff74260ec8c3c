// GPU experiment only (N % 4 == 0): rung 19 with the next tile loaded and stored into the free set at once, AFTER the multiply-adds.
// Exercise 19 solution: exercise 18's block with the next tiles prefetched into registers and two
// sets of local tiles. Each work-item issues the global loads of its share of tile t + 1 *before*
// the multiply-adds of tile t, and stores them into the other set *after* them. In exercise 18
// the group stalls once per tile, waiting for its loads, and on the H100 no other group runs on
// its compute unit meanwhile; here the loads travel while the group computes: a GPU waits for a
// load only where its value is first used, and that is now a whole tile of multiply-adds later.
//
// One barrier per tile: tile t + 1 goes into the set nobody reads during tile t, and the barrier
// at the end of step t both completes tile t + 1 and tells everyone that tile t is read, so step
// t + 1 may overwrite its set. Two sets of the 128 x 256 x 16 tiles fill the 48 KiB NVIDIA's
// OpenCL offers a work-group exactly, so the big block's A tile is unpadded (PAD = 0), and the
// tiles are arrays of the kernel: NVIDIA's OpenCL refuses __local *arguments* that add up to all
// 48 KiB. Where two sets do not fit (a device with 32 KiB) the launch makes them 8 deep.
//
// Which elements a work-item owns changes from exercise 18: its rows, like its columns, are bands
// of four (rows 4*ly .. 4*ly + 3 of each band of RTSM * 4 rows), and the sums are plain floats:
// the form that measured fastest on the H100 (46 TFLOPS at N = 4096; exercise 18's layout with two
// sets of tiles measured 41-42, bench/results/2026-11-26-h100-track-fma).
#define RTSM (TSM / WPTM)                   // work-items down the block (dimension 1)
#define RTSN (TSN / WPTN)                   // work-items across the block (dimension 0)
#define THREADS (RTSM * RTSN)               // the work-group's size
#define LOADS_A (TSM * TSK / 4 / THREADS)   // float4s of the A tile each work-item loads
#define LOADS_B (TSK * TSN / 4 / THREADS)   // and of the B tile
#if WPTM % 4 || WPTN % 4 || PAD % 4 || TSK % 4 || LOADS_A < 1 || LOADS_A * THREADS * 4 != TSM * TSK || \
    LOADS_B < 1 || LOADS_B * THREADS * 4 != TSK * TSN
#error "WPTM, WPTN, PAD and TSK must be multiples of 4, and each work-item must load whole float4s of both tiles"
#endif

// M's element (row, col), or 0 outside the matrix; four of them from column col.
float at(__global const float* M, const int N, const int row, const int col)
{
    return (row < N && col < N) ? M[row * N + col] : 0.0f;
}
float4 at4(__global const float* M, const int N, const int row, const int col)
{
    return (float4)(at(M, N, row, col), at(M, N, row, col + 1), at(M, N, row, col + 2), at(M, N, row, col + 3));
}

// Work-item id's share of tile t, from global memory into registers ra and rb: float4 number id,
// id + THREADS, ... of the A tile (TSM rows of TSK / 4 float4s) and of the B tile (TSK rows of
// TSN / 4). When every row starts on a 16-byte boundary (N a multiple of 4) a float4 is either
// wholly inside the matrix or wholly outside, so one test and one float4 load each; other N load
// floats. Nothing here uses a loaded value, so all the loads are in flight together.
#define FETCH_TILES(t)                                                                                  \
    if (aligned) {                                                                                      \
        _Pragma("unroll") for (int l = 0; l < LOADS_A; l++) {                                           \
            const int q = id + l * THREADS, row = first_row + q / (TSK / 4), k = (t) * TSK + 4 * (q % (TSK / 4)); \
            ra[l] = (row < N && k < N) ? *(__global const float4*)(A + row * N + k) : (float4)(0.0f);   \
        }                                                                                               \
        _Pragma("unroll") for (int l = 0; l < LOADS_B; l++) {                                           \
            const int q = id + l * THREADS, k = (t) * TSK + q / (TSN / 4), col = first_col + 4 * (q % (TSN / 4)); \
            rb[l] = (k < N && col < N) ? *(__global const float4*)(B + k * N + col) : (float4)(0.0f);   \
        }                                                                                               \
    } else {                                                                                            \
        _Pragma("unroll") for (int l = 0; l < LOADS_A; l++) {                                           \
            const int q = id + l * THREADS;                                                             \
            ra[l] = at4(A, N, first_row + q / (TSK / 4), (t) * TSK + 4 * (q % (TSK / 4)));              \
        }                                                                                               \
        _Pragma("unroll") for (int l = 0; l < LOADS_B; l++) {                                           \
            const int q = id + l * THREADS;                                                             \
            rb[l] = at4(B, N, (t) * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));              \
        }                                                                                               \
    }

// The same share, from registers into set s of the local tiles: each float4 of A (row r, columns
// k .. k + 3 of the tile) becomes four floats in four k-rows of the transposed tile; B is stored
// as it is.
#define PUT_TILES(s)                                                                                    \
    _Pragma("unroll") for (int l = 0; l < LOADS_A; l++) {                                               \
        const int q = id + l * THREADS, r = q / (TSK / 4), k = 4 * (q % (TSK / 4));                     \
        At[s][k][r] = ra[l].x;                                                                          \
        At[s][k + 1][r] = ra[l].y;                                                                      \
        At[s][k + 2][r] = ra[l].z;                                                                      \
        At[s][k + 3][r] = ra[l].w;                                                                      \
    }                                                                                                   \
    _Pragma("unroll") for (int l = 0; l < LOADS_B; l++) {                                               \
        const int q = id + l * THREADS;                                                                 \
        *(__local float4*)&Bt[s][q / (TSN / 4)][4 * (q % (TSN / 4))] = rb[l];                           \
    }

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void mmul(const int N, __global const float* A, __global const float* B, __global float* C)
{
    // Two sets of tiles, 16-byte aligned so that the float4 accesses are single instructions.
    __local float At[2][TSK][TSM + PAD] __attribute__((aligned(16)));  // A transposed: (r, k) at [k][r]
    __local float Bt[2][TSK][TSN] __attribute__((aligned(16)));        // B as it is

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int id = ly * RTSN + lx;  // 0 .. THREADS-1, for the loads
    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;
    const bool aligned = N % 4 == 0;

    float acc[WPTM][WPTN];
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < WPTN; j++) acc[i][j] = 0.0f;

    float4 ra[LOADS_A], rb[LOADS_B];  // this work-item's share of the next tile, in flight
    const int tiles = (N + TSK - 1) / TSK;
    FETCH_TILES(0)
    PUT_TILES(0)
    barrier(CLK_LOCAL_MEM_FENCE);  // tile 0 complete in set 0
    for (int t = 0; t < tiles; t++) {
        const int s = t & 1;  // tile t's set; tile t + 1 goes to the other
        // The loads of tile t + 1, issued now: nothing waits for them before PUT_TILES below.


        // Step k: the work-item's WPTM rows of column k of A and WPTN columns of row k of B, as
        // float4s from bands of four, then WPTM x WPTN multiply-adds.
#pragma unroll
        for (int k = 0; k < TSK; k++) {
            float a[WPTM], b[WPTN];
#pragma unroll
            for (int g = 0; g < WPTM / 4; g++) {
                const float4 v = *(__local const float4*)&At[s][k][g * RTSM * 4 + ly * 4];
                a[4 * g] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < WPTN / 4; g++) {
                const float4 v = *(__local const float4*)&Bt[s][k][g * RTSN * 4 + lx * 4];
                b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < WPTN; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }

        // Into the other set: the barrier that ended step t - 1 saw everyone finish reading it.
        if (t + 1 < tiles) {
            const int n = s ^ 1;
            for (int l = 0; l < LOADS_A; l++) {
                const int q = id + l * THREADS, r = q / (TSK / 4), k = 4 * (q % (TSK / 4));
                const int row = first_row + r, col = (t + 1) * TSK + k;
                const float4 v = (row < N && col < N) ? *(__global const float4*)(A + row * N + col) : (float4)(0.0f);
                At[n][k][r] = v.x; At[n][k + 1][r] = v.y; At[n][k + 2][r] = v.z; At[n][k + 3][r] = v.w;
            }
            for (int l = 0; l < LOADS_B; l++) {
                const int q = id + l * THREADS, k = (t + 1) * TSK + q / (TSN / 4), col = first_col + 4 * (q % (TSN / 4));
                *(__local float4*)&Bt[n][q / (TSN / 4)][4 * (q % (TSN / 4))] =
                    (k < N && col < N) ? *(__global const float4*)(B + k * N + col) : (float4)(0.0f);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete, and tile t read by everyone
    }

    // The stores: row band i / 4, column band j / 4, a float4 of four columns at a time.
#pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = first_row + (i / 4) * RTSM * 4 + ly * 4 + i % 4;
#pragma unroll
        for (int g = 0; g < WPTN / 4; g++) {
            const int col = first_col + g * RTSN * 4 + lx * 4;
            if (row >= N) continue;
            if (aligned) {
                if (col < N) *(__global float4*)(C + row * N + col) = (float4)(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
            } else {
                if (col < N) C[row * N + col] = acc[i][4 * g];
                if (col + 1 < N) C[row * N + col + 1] = acc[i][4 * g + 1];
                if (col + 2 < N) C[row * N + col + 2] = acc[i][4 * g + 2];
                if (col + 3 < N) C[row * N + col + 3] = acc[i][4 * g + 3];
            }
        }
    }
}
