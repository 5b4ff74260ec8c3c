// Exercise 18, a correct variant (tests/variants): the same 8 x 16 block per work-item with the A
// tile transposed, written another way. The A tile is loaded down its columns (neighbouring
// work-items take neighbouring rows), so the transposing stores of a warp land on neighbouring
// floats of a k-row; the B tile by the 2D local id (work-item (lc, lr) takes k-rows lr, lr + RTSM,
// ... and float4s lc, lc + RTSN, ...: the very float4s it reads later). The sums are plain floats,
// acc[j][i] with the column first, and fma() on scalars.
// Still the lesson: all of a tile's global loads are issued before any local store, and per step
// k a work-item reads its WPTM neighbouring rows of A and its WPTN columns of B as float4s only.
// Edges: loads outside the matrix give zeros, stores outside it are skipped; every work-item
// reaches both barriers.
#define RTSM (TSM / WPTM)                   // work-items down the block (dimension 1)
#define RTSN (TSN / WPTN)                   // work-items across the block (dimension 0)
#define THREADS (RTSM * RTSN)
#define AK (TSM + PAD)                      // floats in one k-row of the transposed A tile
#define LOADS_A (TSM * TSK / 4 / THREADS)   // float4s of the A tile per work-item
#define B_ROWS (TSK / RTSM)                 // k-rows of the B tile per work-item
#define B_COLS (TSN / 4 / RTSN)             // float4s of each such row per work-item
#if WPTM % 4 || WPTN % 4 || PAD % 4 || TSK % 4 || LOADS_A < 1 || LOADS_A * THREADS * 4 != TSM * TSK || \
    TSK % RTSM || B_ROWS < 1 || B_COLS < 1
#error "WPTM, WPTN, PAD and TSK must be multiples of 4, and the tiles must split into whole float4s per work-item"
#endif

// Four floats of row `row` of M from column `col` (a multiple of 4); zeros outside the matrix.
// With N a multiple of 4 a float4 is wholly inside or wholly outside: one aligned load.
float4 quad(__global const float* M, const int N, const int row, const int col)
{
    if (row >= N) return (float4)(0.0f);
    __global const float* p = M + row * N + col;
    if ((N & 3) == 0) return col < N ? *(__global const float4*)p : (float4)(0.0f);
    return (float4)(col < N ? p[0] : 0.0f, col + 1 < N ? p[1] : 0.0f, col + 2 < N ? p[2] : 0.0f,
                    col + 3 < N ? p[3] : 0.0f);
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void mmul(const int N,
          __global const float* A,
          __global const float* B,
          __global float* C,
          __local float4* AwrkT,   // A transposed: TSK k-rows of AK floats, (r, k) at [k*AK + r]
          __local float4* Bwrk)    // B as it is: TSK rows of TSN / 4 float4s
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int id = lr * RTSN + lc;
    const int row0 = get_group_id(1) * TSM, col0 = get_group_id(0) * TSN;
    __local float* At = (__local float*)AwrkT;

    float acc[WPTN][WPTM];  // element (row0 + lr*WPTM + i, col0 + 4*(lc + RTSN*(j/4)) + j%4)
#pragma unroll
    for (int j = 0; j < WPTN; j++)
#pragma unroll
        for (int i = 0; i < WPTM; i++) acc[j][i] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += TSK) {
        // Loads: float4 q of the A tile is row q % TSM, k-columns 4*(q / TSM) .. + 3.
        float4 ra[LOADS_A], rb[B_ROWS][B_COLS];
#pragma unroll
        for (int l = 0; l < LOADS_A; l++) {
            const int q = id + l * THREADS;
            ra[l] = quad(A, N, row0 + q % TSM, k0 + 4 * (q / TSM));
        }
#pragma unroll
        for (int r = 0; r < B_ROWS; r++)
#pragma unroll
            for (int c = 0; c < B_COLS; c++) rb[r][c] = quad(B, N, k0 + lr + RTSM * r, col0 + 4 * (lc + RTSN * c));

        // Stores, now that every load is on its way.
#pragma unroll
        for (int l = 0; l < LOADS_A; l++) {
            const int q = id + l * THREADS, r = q % TSM, k = 4 * (q / TSM);
            At[k * AK + r] = ra[l].x;
            At[(k + 1) * AK + r] = ra[l].y;
            At[(k + 2) * AK + r] = ra[l].z;
            At[(k + 3) * AK + r] = ra[l].w;
        }
#pragma unroll
        for (int r = 0; r < B_ROWS; r++)
#pragma unroll
            for (int c = 0; c < B_COLS; c++) Bwrk[(lr + RTSM * r) * (TSN / 4) + lc + RTSN * c] = rb[r][c];
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles whole before anyone reads them

#pragma unroll
        for (int k = 0; k < TSK; k++) {
            float a[WPTM], b[WPTN];
#pragma unroll
            for (int g = 0; g < WPTM / 4; g++) {
                const float4 v = AwrkT[(k * AK + lr * WPTM) / 4 + g];
                a[4 * g] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < WPTN / 4; g++) {
                const float4 v = Bwrk[k * (TSN / 4) + lc + RTSN * g];
                b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < WPTN; j++)
#pragma unroll
                for (int i = 0; i < WPTM; i++) acc[j][i] = fma(a[i], b[j], acc[j][i]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading before the next tiles go in
    }

#pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = row0 + lr * WPTM + i;
#pragma unroll
        for (int g = 0; g < WPTN / 4; g++) {
            const int col = col0 + 4 * (lc + RTSN * g);
            if (row >= N || col >= N) continue;
            __global float* p = C + row * N + col;
            if ((N & 3) == 0) {
                *(__global float4*)p = (float4)(acc[4 * g][i], acc[4 * g + 1][i], acc[4 * g + 2][i], acc[4 * g + 3][i]);
            } else {
#pragma unroll
                for (int c = 0; c < 4; c++)
                    if (col + c < N) p[c] = acc[4 * g + c][i];
            }
        }
    }
}
