// Exercise 18: exercise 17's kernel with the A tile stored transposed in local memory: AwrkT holds
// TSK rows (one per k) of TSM + PAD floats (PAD = 4), so At[k*(TSM + PAD) + r] is element (r, k)
// of the A tile. Each work-item now owns 8 neighbouring rows, lr*WPTM .. lr*WPTM + 7, and reads
// them at step k as two float4s; its columns are exercise 17's.

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
                   __local float4* AwrkT,
                   __local float4* Bwrk)
{
    // TODO: as in exercise 17: lc, lr, threads, id, first_row, first_col, float4 acc[WPTM][2].
    //       At = (__local float*)AwrkT, the transposed A tile seen as floats.
    // TODO: for each tile t:
    //         - for q = id, id + threads, ... < TSM*TSK/4: r = q / (TSK/4), k4 = 4*(q % (TSK/4));
    //           float4 a = load4(A, N, first_row + r, t*TSK + k4); store its four floats
    //           transposed: At[(k4 + j)*(TSM + PAD) + r] for j = 0..3 (a.x .. a.w);
    //           the B tile as in exercise 17: Bwrk[q] = load4(B, ...);
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    //         - for k: b0, b1 as in exercise 17; this work-item's 8 rows of column k:
    //           a_lo = AwrkT[(k*(TSM + PAD) + lr*WPTM) / 4] and a_hi, the next float4;
    //           acc[i][0] += a[i] * b0, acc[i][1] += a[i] * b1 with a[0..7] = a_lo.x .. a_hi.w;
    //         - barrier(CLK_LOCAL_MEM_FENCE);
    // TODO: store4 row first_row + lr*WPTM + i, columns as in exercise 17.
}
