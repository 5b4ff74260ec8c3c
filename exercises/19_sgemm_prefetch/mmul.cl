// Exercise 19: exercise 18's block with the next tiles prefetched into registers and two sets of
// local tiles. Each work-item issues the global loads of its share of tile t + 1 before the
// multiply-adds of tile t and stores them into the other set after them, with one barrier per
// tile. The shapes and the launch are exercise 18's (the big block's A tile unpadded, PAD = 0, so
// that two sets fit in 48 KiB); the tiles are __local arrays of the kernel; which rows a work-item
// owns changes (see the README).
#define RTSM (TSM / WPTM)                   // work-items down the block (dimension 1)
#define RTSN (TSN / WPTN)                   // work-items across the block (dimension 0)
#define THREADS (RTSM * RTSN)               // the work-group's size
#define LOADS_A (TSM * TSK / 4 / THREADS)   // float4s of the A tile each work-item loads
#define LOADS_B (TSK * TSN / 4 / THREADS)   // and of the B tile
#if WPTM % 4 || WPTN % 4 || PAD % 4 || TSK % 4 || LOADS_A < 1 || LOADS_A * THREADS * 4 != TSM * TSK || \
    LOADS_B < 1 || LOADS_B * THREADS * 4 != TSK * TSN
#error "WPTM, WPTN, PAD and TSK must be multiples of 4, and each work-item must load whole float4s of both tiles"
#endif

// Given: the loads and stores of the tiles.
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
    const bool aligned = N % 4 == 0;  // FETCH_TILES reads it
    float4 ra[LOADS_A], rb[LOADS_B];  // this work-item's share of the next tile (FETCH_TILES, PUT_TILES)

    // TODO: float acc[WPTM][WPTN], all 0.
    // TODO: before the loop: FETCH_TILES(0), PUT_TILES(0), then barrier(CLK_LOCAL_MEM_FENCE).
    // TODO: for each tile t (s = t & 1 is its set):
    //         - if t + 1 < tiles: FETCH_TILES(t + 1) (the loads travel while ...);
    //         - ... the k loop multiplies tile t from set s: for each k, the float4s
    //           At[s][k][g*RTSM*4 + ly*4] (g < WPTM/4) and Bt[s][k][g*RTSN*4 + lx*4] (g < WPTN/4),
    //           then acc[i][j] = fma(a[i], b[j], acc[i][j]) for every i and j;
    //         - if t + 1 < tiles: PUT_TILES(s ^ 1); then one barrier.
    // TODO: the stores: row first_row + (i/4)*RTSM*4 + ly*4 + i%4, columns first_col + g*RTSN*4 + lx*4
    //       (a float4 when aligned, else the columns inside the matrix one by one).
}
