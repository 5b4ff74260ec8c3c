// Exercise 05: C = A·B for N x N row-major matrices, one work-item per element of C.
//
// The serial code you are turning into a kernel:
//     for (int i = 0; i < N; i++)
//         for (int j = 0; j < N; j++) {
//             float sum = 0.0f;
//             for (int k = 0; k < N; k++)
//                 sum += A[i*N + k] * B[k*N + j];
//             C[i*N + j] = sum;
//         }
// The two outer loops become the 2D range: each work-item runs the k loop for its own (i, j).
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    // TODO: j = get_global_id(0) (the column), i = get_global_id(1) (the row).
    // TODO: the global size is rounded up past N: work-items outside the matrix must do nothing.
    // TODO: the dot product of row i of A and column j of B, stored in C[i*N + j].
}
