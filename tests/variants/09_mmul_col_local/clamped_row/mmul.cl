// A correct kernel in another style: work-items past the last row do not branch around the work,
// they compute a copy of the last row (their index clamped to N - 1) and only skip the store. So
// every work-item runs the same code and reaches every barrier, with no flag to carry.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C,
                   __local float* Bwrk)
{
    const int i = get_global_id(0);
    const int row = min(i, N - 1);
    float Awrk[MAX_N];
    for (int k = 0; k < N; k++) {
        Awrk[k] = A[row * N + k];
    }
    for (int j = 0; j < N; j++) {
        for (int k = get_local_id(0); k < N; k += get_local_size(0)) {
            Bwrk[k] = B[k * N + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        float sum = 0.0f;
        for (int k = 0; k < N; k++) {
            sum += Awrk[k] * Bwrk[k];
        }
        if (i < N) {
            C[i * N + j] = sum;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
