// Exercise 19: exercise 18's kernel with two buffers for each tile. AwrkT holds two transposed A
// tiles (each TSK*(TSM + PAD) floats) one after the other, Bwrk two B tiles (each TSK*TSN/4
// float4s). While the group multiplies the tiles of step t in one buffer, it loads those of step
// t + 1 into the other, with one barrier per step.

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

// TODO: void load_tiles(A, B, N, t, id, threads, first_row, first_col, __local float* At,
//       __local float4* Bwrk): exercise 18's loads of tile t into the buffers At and Bwrk.

__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float4* AwrkT,
                   __local float4* Bwrk)
{
    // TODO: exercise 18's positions and sums; a_floats = TSK*(TSM + PAD) and b_float4s = TSK*TSN/4,
    //       the size of one buffer of each.
    // TODO: load tile 0 into buffer 0, then barrier(CLK_LOCAL_MEM_FENCE).
    // TODO: for each tile t: now = t % 2;
    //         - if t + 1 < tiles: load tile t + 1 into buffer 1 - now (it was last read in step
    //           t - 1, and everyone has passed the barrier at its end since);
    //         - exercise 18's k loop on buffer `now`;
    //         - barrier(CLK_LOCAL_MEM_FENCE): tile t + 1 is complete, and buffer `now` is free.
    // TODO: exercise 18's stores.
}
