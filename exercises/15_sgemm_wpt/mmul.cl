// Exercise 15: C = A·B in TS x TS tiles (TS = 32), each work-item computing WPT = 8 elements of
// one column of C (build options -DTS=32 -DWPT=8 -DRTS=4). A work-group is TS x RTS work-items
// (RTS = TS / WPT = 4): dimension 0 the column within the tile, dimension 1 picks the rows
// lr, lr + RTS, lr + 2*RTS, ... of the tile.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Awrk,
                   __local float* Bwrk)
{
    // TODO: lc = get_local_id(0), lr = get_local_id(1); col = get_group_id(0)*TS + lc; the tile's
    //       first row of C, get_group_id(1)*TS.
    // TODO: float acc[WPT], all 0.0f.
    // TODO: for each tile t = 0 .. (N + TS - 1) / TS - 1:
    //         - for w = 0 .. WPT-1, with r = lr + w*RTS: Awrk[r*TS + lc] = A[first_row + r][t*TS + lc]
    //           and Bwrk[r*TS + lc] = B[t*TS + r][col], or 0.0f outside the matrix;
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    //         - for k = 0 .. TS-1: read b = Bwrk[k*TS + lc] once, then
    //           acc[w] += Awrk[(lr + w*RTS)*TS + k] * b for every w;
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    // TODO: store acc[w] into C[first_row + lr + w*RTS][col], only inside the matrix.
}
