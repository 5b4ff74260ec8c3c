// Exercise 05 solution: C = A·B, one work-item per element of C.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    // Dimension 0 is the one whose neighbouring work-items run side by side (in one GPU warp, or
    // one CPU vector lane after another), so it indexes the column: neighbours then read
    // neighbouring elements of B and write neighbouring elements of C.
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    // The host rounds the global size up to a multiple of the work-group size.
    if (i < N && j < N) {
        // Accumulate in a private variable: writing C inside the loop would send every partial
        // sum to global memory.
        float sum = 0.0f;
        for (int k = 0; k < N; k++) {
            sum += A[i * N + k] * B[k * N + j];
        }
        C[i * N + j] = sum;
    }
}
