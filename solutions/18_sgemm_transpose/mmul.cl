// Exercise 18 solution: exercise 17's 8 x 8 register blocks, with the A tile stored transposed in
// local memory (k-major) and padded. A work-item's eight rows are now contiguous in each k-row of
// the tile, so it reads them as two float4s instead of eight floats; the padding keeps the
// transposing stores of a load from piling into the same local-memory bank.

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

// A TSM x TSN block of C per group (TSM == TSN), tiles TSK deep; each work-item WPTM = 8
// neighbouring rows and two float4s of columns, TSN / 2 apart. The A tile is TSK rows of
// TSM + PAD floats (PAD = 4: a k-row stays a whole number of float4s).
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* AwrkT,
                   __local float4* Bwrk)
{
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int threads = (TSN / 8) * (TSM / WPTM);           // the work-group's size
    const int id = lr * (TSN / 8) + lc;                    // 0 .. threads-1, for the loads
    const int first_row = get_group_id(1) * TSM, first_col = get_group_id(0) * TSN;
    __local float* At = (__local float*)AwrkT;  // the A tile transposed: At[k * (TSM + PAD) + row]

    float4 acc[WPTM][2];
    for (int i = 0; i < WPTM; i++) acc[i][0] = acc[i][1] = (float4)(0.0f);

    const int tiles = (N + TSK - 1) / TSK;
    for (int t = 0; t < tiles; t++) {
        // As many float4s in the A tile as in the B tile (the block is square): the group loads
        // them together, neighbouring ids on neighbouring addresses.
        for (int q = id; q < TSM * TSK / 4; q += threads) {
            const int r = q / (TSK / 4), k4 = 4 * (q % (TSK / 4));
            const float4 a = load4(A, N, first_row + r, t * TSK + k4);
            // Transposed on the way in: the four floats go to four k-rows of the tile.
            At[(k4 + 0) * (TSM + PAD) + r] = a.x;
            At[(k4 + 1) * (TSM + PAD) + r] = a.y;
            At[(k4 + 2) * (TSM + PAD) + r] = a.z;
            At[(k4 + 3) * (TSM + PAD) + r] = a.w;
            Bwrk[q] = load4(B, N, t * TSK + q / (TSN / 4), first_col + 4 * (q % (TSN / 4)));
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them

        for (int k = 0; k < TSK; k++) {
            // This work-item's eight columns of row k of B: two float4s, TSN / 2 columns apart.
            const float4 b0 = Bwrk[k * (TSN / 4) + lc], b1 = Bwrk[k * (TSN / 4) + lc + TSN / 8];
            // This work-item's eight rows of column k of A: two aligned float4 reads.
            const float4 a_lo = AwrkT[(k * (TSM + PAD) + lr * WPTM) / 4];
            const float4 a_hi = AwrkT[(k * (TSM + PAD) + lr * WPTM) / 4 + 1];
            const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            for (int i = 0; i < WPTM; i++) {
                acc[i][0] += a[i] * b0;
                acc[i][1] += a[i] * b1;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load
    }
    for (int i = 0; i < WPTM; i++) {
        const int row = first_row + lr * WPTM + i;
        store4(C, N, row, first_col + 4 * lc, acc[i][0]);
        store4(C, N, row, first_col + TSN / 2 + 4 * lc, acc[i][1]);
    }
}
