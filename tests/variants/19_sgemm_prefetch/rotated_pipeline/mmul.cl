// Exercise 19, a correct variant (tests/variants): the prefetch written as a rotated pipeline.
// Tile 0's loads are peeled off before the loop; step t then stores tile t (already in registers)
// into set t & 1, waits at the one barrier, issues the loads of tile t + 1 and computes tile t.
// The loads travel during a whole tile of multiply-adds, as in the solution, but the loop's seam
// sits elsewhere: the stores open a step instead of closing it, and no barrier follows the last
// tile. Written with its own fetch and put loops, no macros.
//
// Why one barrier per step is enough: step t stores into set t & 1, last read in step t - 2's
// multiply-adds, which every work-item finished before it passed step t - 1's barrier; and step
// t's barrier completes tile t before anyone reads it. Every work-item runs every step, so all of
// them reach every barrier; loads outside the matrix give zeros, stores outside it are skipped.
#define RTSM (TSM / WPTM)                   // work-items down the block (dimension 1)
#define RTSN (TSN / WPTN)                   // work-items across the block (dimension 0)
#define THREADS (RTSM * RTSN)
#define LOADS_A (TSM * TSK / 4 / THREADS)   // float4s of the A tile per work-item
#define LOADS_B (TSK * TSN / 4 / THREADS)   // float4s of the B tile per work-item
#if WPTM % 4 || WPTN % 4 || PAD % 4 || TSK % 4 || LOADS_A < 1 || LOADS_A * THREADS * 4 != TSM * TSK || \
    LOADS_B < 1 || LOADS_B * THREADS * 4 != TSK * TSN
#error "WPTM, WPTN, PAD and TSK must be multiples of 4, and each work-item must load whole float4s of both tiles"
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
void mmul(const int N, __global const float* A, __global const float* B, __global float* C)
{
    __local float At[2][TSK][TSM + PAD] __attribute__((aligned(16)));  // A transposed: (r, k) at [k][r]
    __local float Bt[2][TSK][TSN] __attribute__((aligned(16)));

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int id = ly * RTSN + lx;
    const int row0 = get_group_id(1) * TSM, col0 = get_group_id(0) * TSN;
    const int tiles = (N + TSK - 1) / TSK;

    float acc[WPTM][WPTN];
#pragma unroll
    for (int i = 0; i < WPTM; i++)
#pragma unroll
        for (int j = 0; j < WPTN; j++) acc[i][j] = 0.0f;

    // The pipeline's register stage: one tile's share, between its loads and its stores.
    float4 ra[LOADS_A], rb[LOADS_B];

    // Peeled: tile 0's loads, with nothing to compute behind them.
#pragma unroll
    for (int l = 0; l < LOADS_A; l++) {
        const int q = id + l * THREADS;
        ra[l] = quad(A, N, row0 + q / (TSK / 4), 4 * (q % (TSK / 4)));
    }
#pragma unroll
    for (int l = 0; l < LOADS_B; l++) {
        const int q = id + l * THREADS;
        rb[l] = quad(B, N, q / (TSN / 4), col0 + 4 * (q % (TSN / 4)));
    }

    for (int t = 0; t < tiles; t++) {
        const int s = t & 1;

        // Stage 1: tile t from registers into set s (A transposed, B as it is).
#pragma unroll
        for (int l = 0; l < LOADS_A; l++) {
            const int q = id + l * THREADS, r = q / (TSK / 4), k = 4 * (q % (TSK / 4));
            At[s][k][r] = ra[l].x;
            At[s][k + 1][r] = ra[l].y;
            At[s][k + 2][r] = ra[l].z;
            At[s][k + 3][r] = ra[l].w;
        }
#pragma unroll
        for (int l = 0; l < LOADS_B; l++) {
            const int q = id + l * THREADS;
            *(__local float4*)&Bt[s][q / (TSN / 4)][4 * (q % (TSN / 4))] = rb[l];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // tile t complete in set s

        // Stage 2: tile t + 1's loads, issued now; nothing uses them before the next step's stores.
        if (t + 1 < tiles) {
            const int k0 = (t + 1) * TSK;
#pragma unroll
            for (int l = 0; l < LOADS_A; l++) {
                const int q = id + l * THREADS;
                ra[l] = quad(A, N, row0 + q / (TSK / 4), k0 + 4 * (q % (TSK / 4)));
            }
#pragma unroll
            for (int l = 0; l < LOADS_B; l++) {
                const int q = id + l * THREADS;
                rb[l] = quad(B, N, k0 + q / (TSN / 4), col0 + 4 * (q % (TSN / 4)));
            }
        }

        // Stage 3: tile t's multiply-adds from set s; rows and columns in bands of four, each
        // band one float4 read, unpacked into plain floats.
#pragma unroll
        for (int k = 0; k < TSK; k++) {
            float a[WPTM], b[WPTN];
#pragma unroll
            for (int g = 0; g < WPTM / 4; g++) {
                const float4 v = *(__local const float4*)&At[s][k][(g * RTSM + ly) * 4];
                a[4 * g] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < WPTN / 4; g++) {
                const float4 v = *(__local const float4*)&Bt[s][k][(g * RTSN + lx) * 4];
                b[4 * g] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < WPTM; i++)
#pragma unroll
                for (int j = 0; j < WPTN; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
    }

    // C, four columns at a time where N allows it.
#pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = row0 + ((i / 4) * RTSM + ly) * 4 + i % 4;
#pragma unroll
        for (int g = 0; g < WPTN / 4; g++) {
            const int col = col0 + (g * RTSN + lx) * 4;
            if (row >= N || col >= N) continue;
            __global float* p = C + row * N + col;
            if ((N & 3) == 0) {
                *(__global float4*)p = (float4)(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
            } else {
#pragma unroll
                for (int c = 0; c < 4; c++)
                    if (col + c < N) p[c] = acc[i][4 * g + c];
            }
        }
    }
}
