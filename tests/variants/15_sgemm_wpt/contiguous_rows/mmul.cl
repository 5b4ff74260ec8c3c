// Exercise 15, a correct variant (tests/variants): WPT elements of one column of C per work-item,
// its rows neighbours (lr*WPT .. lr*WPT + WPT-1 of the tile) instead of RTS apart. It loads the
// same rows of both tiles as it computes, and the k loop keeps the lesson: one read of B into a
// register serves WPT multiply-adds. Neighbouring work-items (dimension 0) still load, read and
// store neighbouring columns. Edges: zeros in the tiles outside the matrix, no store there; every
// work-item reaches both barriers.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Awrk,
                   __local float* Bwrk)
{
    const int lc = get_local_id(0);
    const int first = get_local_id(1) * WPT;  // this work-item's first row in the tile
    const int col = get_group_id(0) * TS + lc;
    const int row0 = get_group_id(1) * TS + first;  // its first row of C

    float acc[WPT];
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += TS) {
        const int a_col = k0 + lc;
        for (int w = 0; w < WPT; w++) {
            const int r = first + w;
            Awrk[r * TS + lc] = (row0 + w < N && a_col < N) ? A[(row0 + w) * N + a_col] : 0.0f;
            Bwrk[r * TS + lc] = (k0 + r < N && col < N) ? B[(k0 + r) * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles whole before anyone reads them

        __local const float* arow = Awrk + first * TS;
        for (int k = 0; k < TS; k++) {
            const float b = Bwrk[k * TS + lc];
            for (int w = 0; w < WPT; w++) acc[w] += arow[w * TS + k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done reading before the next tiles go in
    }
    if (col < N)
        for (int w = 0; w < WPT && row0 + w < N; w++) C[(row0 + w) * N + col] = acc[w];
}
