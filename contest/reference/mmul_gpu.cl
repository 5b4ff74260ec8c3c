// The instructor's contest kernel for GPUs: C = A·B for any N, row-major.
//
// Each work-group computes a TSM x TSN block of C; each work-item an WPTM x WPTN sub-block held in
// registers (2D register blocking), so one value read from local memory feeds WPTN (or WPTM)
// multiply-adds instead of one. Tiles of A and B pass through local memory TSK columns at a time,
// in two buffers: while the work-group multiplies one pair of tiles, each work-item has already
// loaded its share of the next pair into registers (the global loads' latency overlaps the maths),
// and one barrier per tile suffices. A is stored transposed (k-major) so that the values a
// work-item needs are adjacent: one float4 read from local memory brings four of them.
//
// Every float4 access goes through a float4 pointer to 16-byte aligned data (local arrays declared
// aligned; global rows when N is a multiple of 4, from buffers that start aligned): vload4 only
// promises 4-byte alignment, and NVIDIA's compiler then splits it into four scalar loads, which
// left this kernel at 29 TFLOPS on the H100 whatever the tile sizes. When N is a multiple of 4,
// a float4 of a row is either wholly inside the matrix or wholly outside, so edge tiles use the
// same float4 loads and stores, each with its own bounds test; other N take scalar loads.
//
// Parameters (build options, chosen per device and size by contest/reference.cpp): TSM, TSN, TSK,
// WPTM, WPTN; WPTM and WPTN are multiples of 4; the work-group is (TSN/WPTN) x (TSM/WPTM)
// work-items. PADA (default 4) pads the rows of transposed A in local memory (spreads its
// transposed stores over banks; 0 lets a 256 x 128 x 16 tile pair fit in 48 KiB). SWZ (default
// 1: off) walks the work-groups in bands of SWZ tile rows, so that the groups running at the same
// time share more tiles of A and B in the L2 cache. PREF (default 0) reads the next step's
// fragments from local memory before the multiply-adds of this one (register double buffering).
// KS (default 1) splits each tile's k-steps between KS slices of the work-group (its third
// dimension), each with its own accumulators, added through local memory at the end: KS times the
// work-items per tile of C, for sizes whose few tiles would leave a compute unit short of warps.
// LSPLIT (default 0) stages the next tiles' global loads in chunks instead of all at the start of a
// tile: 1 loads B's share first and stores it to the other buffer half-way through the k-steps,
// then A's; n > 1 makes n equal chunks (A's loads first), chunk c loaded at step c * STEPS / n and
// stored one chunk later. Fewer registers then hold loads in flight (on the H200: 96x96 split in
// two along k with LSPLIT=3 +3% at N = 1536; 128x256 with PREF and LSPLIT=2 within 1%; issue 64,
// bench/results/contest-reference/NOTES.md).
// TMS (default 0: off; needs LSPLIT 0) stages the next tiles' loads in two register arrays, one
// per matrix, each loaded and stored by a macro of its own: the first loaded at the tile's start and
// stored to the other buffer after step TMID - 1 (0 or unset: STEPS / 2), the second loaded there
// and stored after the last step. TMS 1: B first, the mid-tile work under `if (next)`; 2: B first,
// unguarded (past the last tile the loads' bounds tests give zeros and the stores go to the buffer
// nobody reads again), so no branch falls among the multiply-adds; 3: as 2, A's loads issued before
// B's stores; 4: as 2, A first. The chunked LSPLIT=1 keeps its staging array in memory (its loop over
// unequal chunks is not unrolled: 26-28% slower); the macros keep it in registers. On the H100,
// 128x256 with PREF, TMS 2 and TMID 4: +3.0% (N = 2048), +4.1% (4096), +4.3% (8192) over TMS 0;
// TMS 3 -11% (bench/results/2026-12-07-h100-reference).
// FASTLD (default 0: off; needs LSPLIT 0, and a round of the work-group's loads to cover whole rows
// of both tiles: LOADERS a multiple of TSK / 4 and of TSN / 4) lets a work-group whose tile of C lies
// inside the matrix (N a multiple of 4) load the tiles whose k-range does too without bounds tests,
// from two pointers set once: the integer instructions among the multiply-adds go down. On the
// H100 with TMS 2: +2.2-2.6% (64x128 KS 2, N = 1024), +2.6% (128x64, 6000); on 128x256 with TMS 4
// +0.7-2.0%, with TMS 2 -4 to -7% (bench/results/2026-12-07-h100-cpasync, call 2).
// (A warp's work-items as a block rather than rows, and the multiply-adds column by column, were
// tried too: both only slowed the H200, NOTES.md item 12.)
#ifndef PADA
#define PADA 4
#endif
#ifndef SWZ
#define SWZ 1
#endif
#ifndef PREF
#define PREF 0
#endif
#ifndef KS
#define KS 1
#endif
#ifndef LSPLIT
#define LSPLIT 0
#endif
#ifndef TMS
#define TMS 0
#endif
#ifndef FASTLD
#define FASTLD 0
#endif
#define RTSM (TSM / WPTM)          // work-items along the rows
#define RTSN (TSN / WPTN)          // work-items along the columns
#define THREADS (RTSM * RTSN)     // work-items per slice
#define LOADERS (THREADS * KS)    // all of them load the tiles
#define LOADS_A (TSM * TSK / 4 / LOADERS)  // float4 loads per work-item per A tile
#define LOADS_B (TSK * TSN / 4 / LOADERS)
#define STEPS (TSK / KS)          // k-steps per slice per tile
#if LOADS_A < 1 || LOADS_B < 1 || LOADS_A * LOADERS * 4 != TSM * TSK || LOADS_B * LOADERS * 4 != TSK * TSN || \
    WPTM % 4 || WPTN % 4 || PADA % 4 || STEPS * KS != TSK
#error "tile sizes: each work-item must load whole float4s of both tiles, WPTM, WPTN, PADA be multiples of 4, KS divide TSK"
#endif
// Staging of the next tiles' loads in chunks (LSPLIT): chunk c holds loads CSTART(c) ..
// CSTART(c) + CSIZE(c) - 1 in staging order, at most CH of them.
#if LSPLIT == 1                   // two chunks: B's loads, then A's
#define CHUNKS 2
#define ORDER_B_FIRST 1
#define CH (LOADS_A > LOADS_B ? LOADS_A : LOADS_B)
#define CSTART(c) ((c) ? LOADS_B : 0)
#define CSIZE(c) ((c) ? LOADS_A : LOADS_B)
#else                             // LSPLIT equal chunks (one when LSPLIT is 0), A's loads first
#define CHUNKS (LSPLIT > 1 ? LSPLIT : 1)
#define ORDER_B_FIRST 0
#define CH ((LOADS_A + LOADS_B) / CHUNKS)
#define CSTART(c) ((c) * CH)
#define CSIZE(c) CH
#endif
// Load number idx in staging order is A's load IDX_A(idx) when IS_A(idx), else B's IDX_B(idx).
#define IS_A(idx) (ORDER_B_FIRST ? (idx) >= LOADS_B : (idx) < LOADS_A)
#define IDX_A(idx) (ORDER_B_FIRST ? (idx) - LOADS_B : (idx))
#define IDX_B(idx) (ORDER_B_FIRST ? (idx) : (idx) - LOADS_A)
#if (LSPLIT != 1 && (LOADS_A + LOADS_B) % CHUNKS) || STEPS < CHUNKS
#error "LSPLIT must divide the float4 loads per work-item and be at most the k-steps per slice"
#endif
#if !defined(TMID) || TMID == 0
#undef TMID
#define TMID (STEPS / 2)
#endif
#if TMS && (LSPLIT || TMID < 1 || TMID >= STEPS || TMS > 4)
#error "TMS (1..4) needs LSPLIT 0 and 1 <= TMID < STEPS"
#endif
#if FASTLD && (LSPLIT || LOADERS % (TSK / 4) || LOADERS % (TSN / 4))
#error "FASTLD needs LSPLIT 0, and each round of loads to cover whole rows of the tiles"
#endif

// M's element (row, col), or 0 outside the matrix.
inline float at(__global const float* M, int N, int row, int col) {
    return (row < N && col < N) ? M[row * N + col] : 0.0f;
}
inline float4 at4(__global const float* M, int N, int row, int col) {
    return (float4)(at(M, N, row, col), at(M, N, row, col + 1), at(M, N, row, col + 2), at(M, N, row, col + 3));
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, KS)))
void mmul(const int N, __global const float* A, __global const float* B, __global float* C) {
    // 16-byte aligned, so that the float4 accesses below are single vector instructions.
#if KS == 1
    __local float As[2][TSK][TSM + PADA] __attribute__((aligned(16)));
    __local float Bs[2][TSK][TSN] __attribute__((aligned(16)));
#else
    // The tiles, and after the last one the slices' partial sums, share one block.
#define TILE_FLOATS (2 * TSK * (TSM + PADA) + 2 * TSK * TSN)
    __local float4 shared[(TILE_FLOATS > TSM * TSN ? TILE_FLOATS : TSM * TSN) / 4];
    __local float(*As)[TSK][TSM + PADA] = (__local float(*)[TSK][TSM + PADA])shared;
    __local float(*Bs)[TSK][TSN] = (__local float(*)[TSK][TSN])((__local float*)shared + 2 * TSK * (TSM + PADA));
#endif

    const int tz = get_local_id(2);
    const int tid = (tz * RTSM + get_local_id(1)) * RTSN + get_local_id(0);
    // (tx, ty): the work-item's place among the RTSN x RTSM that share the tile of C.
    const int tx = get_local_id(0), ty = get_local_id(1);
    int gx = get_group_id(0), gy = get_group_id(1);
#if SWZ > 1
    {   // Group number g, in row-major order, takes the tile at row (g mod rows) and column
        // (g div rows) of its band of `rows` tile rows: consecutive groups go down a column.
        const int across = get_num_groups(0), g = gy * across + gx;
        const int first = g / (SWZ * across) * SWZ, rows = min(SWZ, (int)get_num_groups(1) - first);
        const int l = g - first * across;
        gy = first + l % rows;
        gx = l / rows;
    }
#endif
    const int row0 = gy * TSM, col0 = gx * TSN;
    // float4 global accesses need rows that start on 16-byte boundaries.
    const bool aligned = (N % 4) == 0;
#if FASTLD
    // A group whose tile of C lies inside the matrix loads the tiles whose k-range does too
    // (t < N / TSK) without bounds tests, from two pointers set here: a round of loads covers whole
    // rows, so load i is a multiple of N away from load 0, and tile t is t * TSK columns of A and
    // t * TSK rows of B further on.
    const bool inner = aligned && row0 + TSM <= N && col0 + TSN <= N;
    const int full = N / TSK;
    __global const float* pa = A + (size_t)(row0 + tid / (TSK / 4)) * N + (tid % (TSK / 4)) * 4;
    __global const float* pb = B + (size_t)(tid / (TSN / 4)) * N + col0 + (tid % (TSN / 4)) * 4;
#define FAST(t) if (inner && (t) < full)
#define FAST_A(t, i) (*(__global const float4*)(pa + (size_t)(t) * TSK + (size_t)((i) * (LOADERS / (TSK / 4))) * N))
#define FAST_B(t, i) (*(__global const float4*)(pb + (size_t)((t) * TSK + (i) * (LOADERS / (TSN / 4))) * N))
#endif

    // Work-item i's share of a pair of tiles: LOADS_A float4s of A (rows of TSK/4 float4s), then
    // LOADS_B of B (rows of TSN/4 float4s), numbered 0 .. LOADS - 1 in that order and staged in
    // registers in CHUNKS chunks of CH (one chunk, all of them, unless LSPLIT says otherwise).
    float4 st[CH];
#define A_PLACE(idx, t)                                                                        \
    const int f = tid + IDX_A(idx) * LOADERS, gr = row0 + f / (TSK / 4), gk = (t) * TSK + (f % (TSK / 4)) * 4;
#define B_PLACE(idx, t)                                                                        \
    const int f = tid + IDX_B(idx) * LOADERS, gk = (t) * TSK + f / (TSN / 4);                  \
    const int gc = col0 + (f % (TSN / 4)) * 4;
    // Chunk c of tile t into st; the float4 path chosen once per chunk, not per load.
#if FASTLD
#define LOAD_CHUNK_FAST(t)                                                                     \
    FAST(t) {                                                                                  \
        _Pragma("unroll") for (int i = 0; i < LOADS_A; i++) st[i] = FAST_A(t, i);              \
        _Pragma("unroll") for (int i = 0; i < LOADS_B; i++) st[LOADS_A + i] = FAST_B(t, i);    \
    } else
#else
#define LOAD_CHUNK_FAST(t)
#endif
#define LOAD_CHUNK(c, t)                                                                       \
    LOAD_CHUNK_FAST(t)                                                                         \
    if (aligned) {                                                                             \
        _Pragma("unroll") for (int j = 0; j < CSIZE(c); j++) {                                       \
            if (IS_A(CSTART(c) + j)) {                                                      \
                A_PLACE(CSTART(c) + j, t)                                                       \
                st[j] = (gr < N && gk < N) ? *(__global const float4*)(A + gr * N + gk) : (float4)(0.0f); \
            } else {                                                                           \
                B_PLACE(CSTART(c) + j, t)                                                       \
                st[j] = (gk < N && gc < N) ? *(__global const float4*)(B + gk * N + gc) : (float4)(0.0f); \
            }                                                                                  \
        }                                                                                      \
    } else {                                                                                   \
        _Pragma("unroll") for (int j = 0; j < CSIZE(c); j++) {                                       \
            if (IS_A(CSTART(c) + j)) {                                                      \
                A_PLACE(CSTART(c) + j, t)                                                       \
                st[j] = at4(A, N, gr, gk);                                                     \
            } else {                                                                           \
                B_PLACE(CSTART(c) + j, t)                                                       \
                st[j] = at4(B, N, gk, gc);                                                     \
            }                                                                                  \
        }                                                                                      \
    }
    // st into buffer buf: A transposed (k-major), B as it is.
#define STORE_CHUNK(c, buf)                                                                    \
    _Pragma("unroll") for (int j = 0; j < CSIZE(c); j++) {                                           \
        if (IS_A(CSTART(c) + j)) {                                                          \
            const int f = tid + IDX_A(CSTART(c) + j) * LOADERS, r = f / (TSK / 4), k = (f % (TSK / 4)) * 4; \
            As[buf][k][r] = st[j].x; As[buf][k + 1][r] = st[j].y;                              \
            As[buf][k + 2][r] = st[j].z; As[buf][k + 3][r] = st[j].w;                          \
        } else {                                                                               \
            const int f = tid + IDX_B(CSTART(c) + j) * LOADERS, k = f / (TSN / 4), c4 = (f % (TSN / 4)) * 4; \
            *(__local float4*)&Bs[buf][k][c4] = st[j];                                         \
        }                                                                                      \
    }

#if TMS
    // TMS's staging: the next tiles' shares of A and B in registers, one macro per matrix and step.
    float4 ra[LOADS_A], rb[LOADS_B];
#if FASTLD
#define LOAD_A_FAST(t) FAST(t) { _Pragma("unroll") for (int i = 0; i < LOADS_A; i++) ra[i] = FAST_A(t, i); } else
#define LOAD_B_FAST(t) FAST(t) { _Pragma("unroll") for (int i = 0; i < LOADS_B; i++) rb[i] = FAST_B(t, i); } else
#else
#define LOAD_A_FAST(t)
#define LOAD_B_FAST(t)
#endif
#define LOAD_A(t)                                                                              \
    LOAD_A_FAST(t)                                                                             \
    if (aligned) {                                                                             \
        _Pragma("unroll") for (int i = 0; i < LOADS_A; i++) {                                  \
            const int f = tid + i * LOADERS, gr = row0 + f / (TSK / 4);                        \
            const int gk = (t) * TSK + (f % (TSK / 4)) * 4;                                    \
            ra[i] = (gr < N && gk < N) ? *(__global const float4*)(A + gr * N + gk) : (float4)(0.0f); \
        }                                                                                      \
    } else {                                                                                   \
        _Pragma("unroll") for (int i = 0; i < LOADS_A; i++) {                                  \
            const int f = tid + i * LOADERS;                                                   \
            ra[i] = at4(A, N, row0 + f / (TSK / 4), (t) * TSK + (f % (TSK / 4)) * 4);          \
        }                                                                                      \
    }
#define LOAD_B(t)                                                                              \
    LOAD_B_FAST(t)                                                                             \
    if (aligned) {                                                                             \
        _Pragma("unroll") for (int i = 0; i < LOADS_B; i++) {                                  \
            const int f = tid + i * LOADERS, gk = (t) * TSK + f / (TSN / 4);                   \
            const int gc = col0 + (f % (TSN / 4)) * 4;                                         \
            rb[i] = (gk < N && gc < N) ? *(__global const float4*)(B + gk * N + gc) : (float4)(0.0f); \
        }                                                                                      \
    } else {                                                                                   \
        _Pragma("unroll") for (int i = 0; i < LOADS_B; i++) {                                  \
            const int f = tid + i * LOADERS;                                                   \
            rb[i] = at4(B, N, (t) * TSK + f / (TSN / 4), col0 + (f % (TSN / 4)) * 4);          \
        }                                                                                      \
    }
#define STORE_A(buf)                                                                           \
    _Pragma("unroll") for (int i = 0; i < LOADS_A; i++) {                                      \
        const int f = tid + i * LOADERS, r = f / (TSK / 4), k = (f % (TSK / 4)) * 4;           \
        As[buf][k][r] = ra[i].x; As[buf][k + 1][r] = ra[i].y;                                  \
        As[buf][k + 2][r] = ra[i].z; As[buf][k + 3][r] = ra[i].w;                              \
    }
#define STORE_B(buf)                                                                           \
    _Pragma("unroll") for (int i = 0; i < LOADS_B; i++) {                                      \
        const int f = tid + i * LOADERS, k = f / (TSN / 4), c = (f % (TSN / 4)) * 4;           \
        *(__local float4*)&Bs[buf][k][c] = rb[i];                                              \
    }
#if TMS == 4
#define LOAD_FIRST(t) LOAD_A(t)
#define STORE_FIRST(buf) STORE_A(buf)
#define LOAD_SECOND(t) LOAD_B(t)
#define STORE_SECOND(buf) STORE_B(buf)
#else
#define LOAD_FIRST(t) LOAD_B(t)
#define STORE_FIRST(buf) STORE_B(buf)
#define LOAD_SECOND(t) LOAD_A(t)
#define STORE_SECOND(buf) STORE_A(buf)
#endif
#endif

    float acc[WPTM][WPTN];
    #pragma unroll
    for (int m = 0; m < WPTM; m++)
        #pragma unroll
        for (int n = 0; n < WPTN; n++) acc[m][n] = 0.0f;

    const int tiles = (N + TSK - 1) / TSK;
#if TMS
    LOAD_A(0)
    LOAD_B(0)
    STORE_A(0)
    STORE_B(0)
#else
    #pragma unroll
    for (int c = 0; c < CHUNKS; c++) {
        LOAD_CHUNK(c, 0)
        STORE_CHUNK(c, 0)
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < tiles; t++) {
        const int buf = t & 1;
        const bool next = t + 1 < tiles;
        // The next pair of tiles goes to registers now and to the other buffer after the maths
        // (free since the last barrier). With CHUNKS > 1, a chunk at a time: chunk c is loaded
        // at k-step c * STEPS / CHUNKS and stored after the next chunk's step, so fewer registers
        // hold loads in flight.
#if TMS == 1
        if (next) { LOAD_FIRST(t + 1) }
#elif TMS
        LOAD_FIRST(t + 1)
#else
        if (next) { LOAD_CHUNK(0, t + 1) }
#endif
        // The work-item's rows are ty*4 .. ty*4+3 in each of WPTM/4 bands of RTSM*4 rows (and the
        // same for columns), so neighbouring work-items read neighbouring float4s. With PREF, the
        // fragments of step k+1 are read into the other register set before step k's multiply-adds.
#define LOAD_FRAGMENTS(s, k)                                                                   \
        _Pragma("unroll") for (int g = 0; g < WPTM / 4; g++) {                                 \
            const float4 v = *(__local const float4*)&As[buf][k][g * RTSM * 4 + ty * 4];       \
            a[s][g * 4] = v.x; a[s][g * 4 + 1] = v.y; a[s][g * 4 + 2] = v.z; a[s][g * 4 + 3] = v.w; \
        }                                                                                      \
        _Pragma("unroll") for (int g = 0; g < WPTN / 4; g++) {                                 \
            const float4 v = *(__local const float4*)&Bs[buf][k][g * RTSN * 4 + tx * 4];       \
            b[s][g * 4] = v.x; b[s][g * 4 + 1] = v.y; b[s][g * 4 + 2] = v.z; b[s][g * 4 + 3] = v.w; \
        }
        float a[2][WPTM], b[2][WPTN];
#if PREF
        LOAD_FRAGMENTS(0, tz * STEPS)
#endif
        // This slice's k-steps: k0 .. k0 + STEPS - 1 of the tile.
        const int k0 = tz * STEPS;
        #pragma unroll
        for (int k = 0; k < STEPS; k++) {
#if PREF
            if (k + 1 < STEPS) { LOAD_FRAGMENTS((k + 1) & 1, k0 + k + 1) }
#else
            LOAD_FRAGMENTS(k & 1, k0 + k)
#endif
            #pragma unroll
            for (int m = 0; m < WPTM; m++)
                #pragma unroll
                for (int n = 0; n < WPTN; n++) acc[m][n] = fma(a[k & 1][m], b[k & 1][n], acc[m][n]);
#if TMS == 1
            if (k == TMID - 1 && next) { STORE_FIRST(buf ^ 1) LOAD_SECOND(t + 1) }
#elif TMS == 3
            if (k == TMID - 1) { LOAD_SECOND(t + 1) STORE_FIRST(buf ^ 1) }
#elif TMS
            if (k == TMID - 1) { STORE_FIRST(buf ^ 1) LOAD_SECOND(t + 1) }
#elif CHUNKS > 1
            #pragma unroll
            for (int c = 1; c < CHUNKS; c++)
                if (k == c * STEPS / CHUNKS - 1 && next) { STORE_CHUNK(c - 1, buf ^ 1) LOAD_CHUNK(c, t + 1) }
#endif
        }
#if TMS == 1
        if (next) { STORE_SECOND(buf ^ 1) }
#elif TMS
        STORE_SECOND(buf ^ 1)
#else
        if (next) { STORE_CHUNK(CHUNKS - 1, buf ^ 1) }
#endif
        // The other buffer is complete, and everyone is done reading this one before it is refilled.
        barrier(CLK_LOCAL_MEM_FENCE);
    }

#if KS > 1
    // Slice s > 0 hands its sums to slice 0 through local memory (the tiles are no longer read:
    // the loop ended with a barrier), element (m, n) of every work-item side by side.
    __local float* partial = (__local float*)shared;
    const int me = ty * RTSN + tx;
    for (int s = 1; s < KS; s++) {
        if (tz == s) {
            #pragma unroll
            for (int m = 0; m < WPTM; m++)
                #pragma unroll
                for (int n = 0; n < WPTN; n++) partial[(m * WPTN + n) * THREADS + me] = acc[m][n];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tz == 0) {
            #pragma unroll
            for (int m = 0; m < WPTM; m++)
                #pragma unroll
                for (int n = 0; n < WPTN; n++) acc[m][n] += partial[(m * WPTN + n) * THREADS + me];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tz != 0) return;
#endif
    #pragma unroll
    for (int m = 0; m < WPTM; m++) {
        const int row = row0 + (m / 4) * RTSM * 4 + ty * 4 + m % 4;
        #pragma unroll
        for (int g = 0; g < WPTN / 4; g++) {
            const int col = col0 + g * RTSN * 4 + tx * 4;
            const float4 v = (float4)(acc[m][g * 4], acc[m][g * 4 + 1], acc[m][g * 4 + 2], acc[m][g * 4 + 3]);
            if (row >= N) continue;
            if (aligned) {
                if (col < N) *(__global float4*)(C + row * N + col) = v;
            } else {
                if (col < N) C[row * N + col] = v.x;
                if (col + 1 < N) C[row * N + col + 1] = v.y;
                if (col + 2 < N) C[row * N + col + 2] = v.z;
                if (col + 3 < N) C[row * N + col + 3] = v.w;
            }
        }
    }
}
