// Rung 19 solution: rung 18's kernel, and the next tiles staged in registers. Each work-item
// issues the global loads of its share of tile t + 1 (fetch_tiles) *before* the multiply-adds
// of tile t, and stores them to local memory (put_tiles) *after* them: the loads' latency hides
// behind 128 x TSK multiply-adds instead of stalling the group before every barrier. It is
// rung 18's loop rotated by half a step; the local tiles and the launch are rung 18's.
// Two barriers per tile remain: nobody may overwrite tile t until everyone has finished reading
// it. Doubling the local tiles saves one of them (r19db.cl), but measured slower on the H100.
// Shapes, build options, __local arguments and which elements a work-item owns: as rung 18.
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
// A (row-major, as they are in A) and LOADS_B float4s of B.
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

    float4 acc[WPTM][COLS4];
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < COLS4; j++) acc[i][j] = (float4)(0.0f);

    float4 ra[LOADS_A], rb[LOADS_B];  // this work-item's share of the next tiles, in flight
    const int tiles = (N + TSK - 1) / TSK;
    fetch_tiles(A, B, N, 0, id, first_row, first_col, ra, rb);
    put_tiles(id, ra, rb, (__local float*)AwrkT, Bwrk);
    barrier(CLK_LOCAL_MEM_FENCE);  // tile 0 complete
    for (int t = 0; t < tiles; t++) {
        // Issue the loads of tile t + 1 now; nothing waits for them until put_tiles below.
        if (t + 1 < tiles) fetch_tiles(A, B, N, t + 1, id, first_row, first_col, ra, rb);

#pragma unroll
        for (int k = 0; k < TSK; k++) {
            // As in rung 18: WPTM rows of column k of A, WPTN columns of row k of B.
            float a[WPTM];
#pragma unroll
            for (int i = 0; i < ROWS4; i++) {
                const float4 v = AwrkT[(k * AK + lr * WPTM) / 4 + i];
                a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
            float4 b[COLS4];
#pragma unroll
            for (int j = 0; j < COLS4; j++) b[j] = Bwrk[k * (TSN / 4) + j * RTSN + lc];
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < COLS4; j++) acc[i][j] += a[i] * b[j];
        }

        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading tile t
        if (t + 1 < tiles) put_tiles(id, ra, rb, (__local float*)AwrkT, Bwrk);
        barrier(CLK_LOCAL_MEM_FENCE);  // tile t + 1 complete
    }
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < COLS4; j++)
            store4(C, N, first_row + lr * WPTM + i, first_col + 4 * (j * RTSN + lc), acc[i][j]);
}
