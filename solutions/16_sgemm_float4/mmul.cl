// Exercise 16 solution: exercise 15's eight elements per work-item, arranged as a float4 of four
// neighbouring columns in two rows, so loads from global memory, reads of the B tile and the sums
// move four floats at a time.

// Four floats of row `row` of M from column `col` on (col is a multiple of 4), zeros outside the
// matrix. When N % 4 == 0 every row starts on a 16-byte boundary and so does the float4: then one
// load through a float4 pointer, which tells the compiler the alignment (vload4 on a float
// pointer promises only 4 bytes, and some compilers split it into four loads). Otherwise, or at
// the edge, element by element.
float4 load4(__global const float* M, const int N, const int row, const int col)
{
    if (row >= N) return (float4)(0.0f);
    __global const float* p = M + row * N + col;
    if (N % 4 == 0 && col < N) return *(__global const float4*)p;
    return (float4)(col < N ? p[0] : 0.0f, col + 1 < N ? p[1] : 0.0f,
                    col + 2 < N ? p[2] : 0.0f, col + 3 < N ? p[3] : 0.0f);
}

// The same for a store: only the elements inside the matrix.
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
    const int TSV = TS / 4;          // float4s in a row of a tile
    const int lc = get_local_id(0);  // which float4 of the tile's row, 0 .. TSV-1
    const int lr = get_local_id(1);  // this work-item's rows in the tile: lr and lr + RTS
    const int col = get_group_id(0) * TS + 4 * lc;
    const int first_row = get_group_id(1) * TS;
    // The A tile read one float at a time in the k loop: the same memory, seen as floats.
    __local const float* As = (__local const float*)Awrk;

    float4 acc0 = (float4)(0.0f), acc1 = (float4)(0.0f);
    const int tiles = (N + TS - 1) / TS;
    for (int t = 0; t < tiles; t++) {
        for (int w = 0; w < 2; w++) {
            const int r = lr + w * RTS;
            Awrk[r * TSV + lc] = load4(A, N, first_row + r, t * TS + 4 * lc);
            Bwrk[r * TSV + lc] = load4(B, N, t * TS + r, col);
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // both tiles complete before anyone reads them

        for (int k = 0; k < TS; k++) {
            const float4 b = Bwrk[k * TSV + lc];  // four columns of B in one local read
            acc0 += As[lr * TS + k] * b;
            acc1 += As[(lr + RTS) * TS + k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load
    }
    store4(C, N, first_row + lr, col, acc0);
    store4(C, N, first_row + lr + RTS, col, acc1);
}
