// Exercise 17: 2D register blocking. A work-group of 16 x 16 work-items computes a TSM x TSN block
// of C (128 x 128, build options; the block is square); each work-item computes 8 x 8 elements of
// it: rows lr, lr + RTSM, ..., lr + 7*RTSM of the block (WPTM = 8 rows, RTSM = 16 apart) and the
// columns of two float4s, 4*lc and 4*lc + TSN/2. The tiles are TSK = 16 deep along k.

// Given (exercise 16's): four floats of row `row` of M from column `col` (a multiple of 4), zeros
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

__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* Awrk,
                   __local float4* Bwrk)
{
    // TODO: lc, lr = the local ids; threads = (TSN / 8) * (TSM / WPTM) (the group's size) and
    //       id = lr * (TSN / 8) + lc; first_row = get_group_id(1)*TSM, first_col = get_group_id(0)*TSN.
    // TODO: float4 acc[WPTM][2], all zero.
    // TODO: for each tile t = 0 .. (N + TSK - 1) / TSK - 1:
    //         - the group loads both tiles, float4 q = id, id + threads, ... < TSM*TSK/4 of each:
    //           Awrk[q] = load4(A, N, first_row + q / (TSK/4), t*TSK + 4*(q % (TSK/4)))
    //           Bwrk[q] = load4(B, N, t*TSK + q / (TSN/4), first_col + 4*(q % (TSN/4)));
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    //         - for k = 0 .. TSK-1: b0 = Bwrk[k*(TSN/4) + lc], b1 = Bwrk[k*(TSN/4) + lc + TSN/8];
    //           for each i: a = the A tile's element (lr + i*RTSM, k), read as a float from
    //           (__local const float*)Awrk, row length TSK; acc[i][0] += a * b0, acc[i][1] += a * b1;
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    // TODO: store4 each acc[i][0] at (first_row + lr + i*RTSM, first_col + 4*lc) and acc[i][1]
    //       TSN/2 columns further.
}
