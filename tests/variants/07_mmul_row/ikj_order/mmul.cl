// A correct row kernel in another style: the i-k-j loop order. Row i of C is cleared, then each
// A[i][k] is multiplied into the whole row k of B, so B is read row-wise. Every C[i][j] still adds
// its products in k order, so its rounding is that of the i-j-k kernel.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    const int i = get_global_id(0);
    if (i >= N) {
        return;
    }
    __global float* row = C + i * N;
    for (int j = 0; j < N; j++) {
        row[j] = 0.0f;
    }
    for (int k = 0; k < N; k++) {
        const float a = A[i * N + k];
        for (int j = 0; j < N; j++) {
            row[j] += a * B[k * N + j];
        }
    }
}
