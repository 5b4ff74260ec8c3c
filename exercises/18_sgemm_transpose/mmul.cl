// Exercise 18: a bigger register block. A work-group of 16 x 16 work-items computes a TSM x TSN
// block of C (build options: 128 x 256 at most sizes, 128 x 128 where that leaves fewer compute
// units idle; launch.hpp chooses), each work-item WPTM x WPTN elements of it (8 x 16, or 8 x 8):
//  - rows lr*WPTM .. lr*WPTM + WPTM-1 of the block: neighbours, unlike exercise 17's rows RTSM apart;
//  - WPTN / 4 float4s of columns, float4 number lc + j*RTSN of the block's row (j = 0 .. WPTN/4 - 1),
//    so that neighbouring work-items read and write neighbouring float4s.
// The A tile is stored transposed in local memory: AwrkT holds TSK k-rows of AK = TSM + PAD floats,
// element (r, k) of the tile at float k*AK + r, so a work-item's 8 values of A at step k are two
// float4s. Each work-item loads its whole share of a tile into registers (fetch_tiles) before it
// stores any of it (put_tiles): the README says why that matters here.
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

// Given: exercise 16's helpers.
// Four floats of row `row` of M from column `col` (a multiple of 4), zeros
// outside the matrix, one aligned float4 load when every row starts on a 16-byte boundary.
float4 load4(__global const float* M, const int N, const int row, const int col)
{
    if (row >= N) return (float4)(0.0f);
    __global const float* p = M + row * N + col;
    if (N % 4 == 0 && col < N) return *(__global const float4*)p;
    return (float4)(col < N ? p[0] : 0.0f, col + 1 < N ? p[1] : 0.0f,
                    col + 2 < N ? p[2] : 0.0f, col + 3 < N ? p[3] : 0.0f);
}

// A float4 of C, only its columns inside the matrix.
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

// TODO: work-item `id`'s share of tile t, from global memory into registers. The A tile is TSM rows
//       of TSK / 4 float4s, the B tile TSK rows of TSN / 4 float4s; the work-item loads float4
//       q = id + l*THREADS of each (l = 0 .. LOADS_A-1 of A into ra[l], 0 .. LOADS_B-1 of B into
//       rb[l]). A's float4 q: row first_row + q / (TSK/4), column t*TSK + 4*(q % (TSK/4)); B's:
//       row t*TSK + q / (TSN/4), column first_col + 4*(q % (TSN/4)). Only loads: no stores here.
void fetch_tiles(__global const float* A, __global const float* B, const int N, const int t, const int id,
                 const int first_row, const int first_col, float4 ra[LOADS_A], float4 rb[LOADS_B])
{
}

// TODO: the same share, from registers into local memory. A's float4 l (row r = q / (TSK/4),
//       columns k4 = 4*(q % (TSK/4)) .. k4 + 3 of the tile) goes to four k-rows of the transposed
//       tile: At[(k4 + j)*AK + r] = its j-th float (j = 0 .. 3). B's float4 l goes to Bt[q].
void put_tiles(const int id, const float4 ra[LOADS_A], const float4 rb[LOADS_B], __local float* At,
               __local float4* Bt)
{
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void mmul(const int N,
          __global const float* A,
          __global const float* B,
          __global float* C,
          __local float4* AwrkT,   // the A tile transposed: TSK k-rows of AK floats, (r, k) at [k*AK + r]
          __local float4* Bwrk)    // the B tile as in B: TSK rows of TSN / 4 float4s
{
    // TODO: lc, lr = the local ids; id = lr*RTSN + lc; first_row = get_group_id(1)*TSM,
    //       first_col = get_group_id(0)*TSN; float4 acc[WPTM][WPTN/4], all zero;
    //       float4 ra[LOADS_A], rb[LOADS_B] for the loads.
    // TODO: for each tile t = 0 .. (N + TSK - 1) / TSK - 1:
    //         - fetch_tiles(...), then put_tiles(..., (__local float*)AwrkT, Bwrk);
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    //         - for k = 0 .. TSK-1: a[0..WPTM-1] from the WPTM/4 float4s AwrkT[(k*AK + lr*WPTM)/4]
    //           and on; b[j] = Bwrk[k*(TSN/4) + j*RTSN + lc] for j = 0 .. WPTN/4 - 1;
    //           acc[i][j] = fma((float4)(a[i]), b[j], acc[i][j]) for every i and j;
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    // TODO: store4(C, N, first_row + lr*WPTM + i, first_col + 4*(j*RTSN + lc), acc[i][j]) for every
    //       i and j.
}
