// Exercise 16: C = A·B in TS x TS tiles (TS = 32, build option), each work-item computing a float4
// of C (four neighbouring columns) in two rows RTS = 16 apart. A work-group is (TS/4) x RTS
// work-items: dimension 0 which float4 of a tile's row, dimension 1 the first of the two rows.
// The local tiles are declared as float4: TS/4 of them per row of a tile.

// TODO: float4 load4(__global const float* M, const int N, const int row, const int col):
//       the four floats M[row][col .. col+3] (col is a multiple of 4), 0.0f for any outside the
//       matrix. When N % 4 == 0 the four are 16-byte aligned: load them in one go through a
//       (__global const float4*) pointer. Otherwise element by element.
// TODO: void store4(__global float* M, const int N, const int row, const int col, const float4 v):
//       the same for a store; write only the elements inside the matrix.

__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* Awrk,
                   __local float4* Bwrk)
{
    // TODO: TSV = TS / 4; lc = get_local_id(0), lr = get_local_id(1);
    //       col = get_group_id(0)*TS + 4*lc; first_row = get_group_id(1)*TS.
    // TODO: float4 acc0, acc1 = 0 (rows first_row + lr and first_row + lr + RTS).
    // TODO: for each tile t = 0 .. (N + TS - 1) / TS - 1:
    //         - for r = lr and lr + RTS: Awrk[r*TSV + lc] = load4(A, N, first_row + r, t*TS + 4*lc)
    //           and Bwrk[r*TSV + lc] = load4(B, N, t*TS + r, col);
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    //         - for k = 0 .. TS-1: float4 b = Bwrk[k*TSV + lc]; acc0 += A tile (lr, k) * b and
    //           acc1 += A tile (lr + RTS, k) * b, reading the A tile as floats:
    //           ((__local const float*)Awrk)[row*TS + k];
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    // TODO: store4 both sums.
}
