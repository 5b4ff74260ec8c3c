// Exercise 11: pi = ∫₀¹ 4/(1+x²) dx by the midpoint rule, summed in parallel.
// Every work-item sums `niters` consecutive steps; the steps of work-item g are
// g·niters .. g·niters + niters - 1 (g = its global id), and step i is evaluated at
// x = (i + 0.5) · step_size. Each work-group then reduces its work-items' sums to one value in
// partial_sums[group id]; the host adds the partial sums.
__kernel void pi(const int niters,
                 const float step_size,
                 __local float* local_sums,
                 __global float* partial_sums)
{
    // TODO: the first step of this work-item. niters · global id passes 2^31 for large runs:
    //       compute it as a long.
    // TODO: sum 4/(1+x²) over this work-item's niters steps into a private float.
    // TODO: store the sum in local_sums[local id], then barrier(CLK_LOCAL_MEM_FENCE) so that
    //       every work-item's sum is there before anyone reads them.
    // TODO: one work-item (local id 0) adds local_sums[0 .. local size - 1] and writes the result
    //       to partial_sums[group id].
}
