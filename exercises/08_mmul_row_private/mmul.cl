// Exercise 08: one work-item per row of C, with that row of A copied into private memory first.
// MAX_N (a build option, 1024) is the size of the private array; the host never passes N > MAX_N.
__kernel void mmul(const int N,
                   __global const float* A,
                   __global const float* B,
                   __global float* C)
{
    // TODO: i = get_global_id(0); rows past N do nothing.
    // TODO: declare float Awrk[MAX_N] and copy row i of A into it (N values).
    // TODO: for every column j, the dot product of Awrk and column j of B into C[i*N + j].
}
