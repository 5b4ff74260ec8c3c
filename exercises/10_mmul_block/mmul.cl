// Exercise 10: C = A·B in TS x TS blocks (TS = 16, a build option). Each work-group computes one
// block of C; it walks along a row of blocks of A and a column of blocks of B, loading one block
// of each into local memory at a time (Awrk, Bwrk: TS*TS floats each), so every element of A and B
// is read from global memory N / TS times instead of N times.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Awrk,
                   __local float* Bwrk)
{
    // TODO: col = get_global_id(0), row = get_global_id(1); lc, lr = the local ids (0..TS-1).
    // TODO: for each block t = 0 .. (N + TS - 1) / TS - 1 (round UP: N need not be a multiple of TS):
    //         - Awrk[lr*TS + lc] = A[row][t*TS + lc] and Bwrk[lr*TS + lc] = B[t*TS + lr][col],
    //           or 0.0f where that index is outside the matrix (the edge blocks);
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    //         - sum += Awrk[lr*TS + k] * Bwrk[k*TS + lc] for k = 0 .. TS-1;
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    // TODO: after the loop, store sum into C[row*N + col] if row < N and col < N.
    //       Every work-item must reach every barrier: do not return early.
}
