// Exercise 10 solution: blocked matrix multiplication with TS x TS tiles in local memory.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Awrk,
                   __local float* Bwrk)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const int lc = get_local_id(0);
    const int lr = get_local_id(1);

    float sum = 0.0f;
    // Rounded up: when N is not a multiple of TS the last blocks hang over the edge.
    const int blocks = (N + TS - 1) / TS;
    for (int t = 0; t < blocks; t++) {
        // Each work-item loads one element of each tile; neighbours in dimension 0 read
        // neighbouring addresses. Outside the matrix the tile is padded with zeros, which add
        // nothing to the sum, so the edge blocks need no special loop.
        const int a_col = t * TS + lc;
        const int b_row = t * TS + lr;
        Awrk[lr * TS + lc] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bwrk[lr * TS + lc] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them

        for (int k = 0; k < TS; k++) {
            sum += Awrk[lr * TS + k] * Bwrk[k * TS + lc];
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load
    }
    // Only now may the work-items outside the matrix be left out: no barrier follows.
    if (row < N && col < N) {
        C[row * N + col] = sum;
    }
}
