// Exercise 15 solution: 32 x 32 tiles in local memory, and each work-item computes WPT = 8
// elements of one column of C, rows RTS = 4 apart, so every value of the B tile it loads into a
// register serves eight multiply-adds instead of one.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Awrk,
                   __local float* Bwrk)
{
    const int lc = get_local_id(0);  // the column within the tile, 0 .. TS-1
    const int lr = get_local_id(1);  // the first of this work-item's rows in the tile, 0 .. RTS-1
    const int col = get_group_id(0) * TS + lc;
    const int first_row = get_group_id(1) * TS;  // the tile's first row of C

    float acc[WPT];
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;

    const int tiles = (N + TS - 1) / TS;  // rounded up: the last tile may hang over the edge
    for (int t = 0; t < tiles; t++) {
        // The group's TS x RTS work-items load the two TS x TS tiles, WPT rows each. Rows RTS
        // apart keep neighbours in dimension 0 on neighbouring addresses; outside the matrix the
        // tiles hold zeros, which add nothing.
        for (int w = 0; w < WPT; w++) {
            const int r = lr + w * RTS;  // a row of the tile
            const int a_row = first_row + r, a_col = t * TS + lc, b_row = t * TS + r;
            Awrk[r * TS + lc] = (a_row < N && a_col < N) ? A[a_row * N + a_col] : 0.0f;
            Bwrk[r * TS + lc] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them

        for (int k = 0; k < TS; k++) {
            const float b = Bwrk[k * TS + lc];  // one local read, WPT uses from a register
            for (int w = 0; w < WPT; w++)
                acc[w] += Awrk[(lr + w * RTS) * TS + k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load
    }
    // No barrier follows: only now may work-items outside the matrix skip their stores.
    for (int w = 0; w < WPT; w++) {
        const int row = first_row + lr + w * RTS;
        if (row < N && col < N) C[row * N + col] = acc[w];
    }
}
