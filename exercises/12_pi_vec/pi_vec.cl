// Exercise 12: the pi integral of exercise 11 with vector types. Same arguments, same split of the
// steps (work-item g sums steps g·niters .. g·niters + niters - 1 at x = (i + 0.5)·step_size), same
// partial sum per work-group, but each work-item evaluates 4 (pi_vec4) or 8 (pi_vec8) steps at once.
// niters need not be a multiple of the width: the steps left over are summed one at a time.

// TODO (optional, but it saves writing the reduction twice): a helper function that stores a
// work-item's sum in local_sums, waits at a barrier, and lets local id 0 write the group's total
// to partial_sums[group id]. Every work-item must call it, since it holds a barrier.

__kernel void pi_vec4(const int niters,
                      const float step_size,
                      __local float* local_sums,
                      __global float* partial_sums)
{
    // TODO: a float4 of running sums; while 4 or more steps remain, evaluate 4/(1+x²) for the
    //       four x of steps i, i+1, i+2, i+3 at once, e.g. x = ((float)(first + i) + (float4)(0.5f,
    //       1.5f, 2.5f, 3.5f)) * step_size.
    // TODO: add the four lanes together, then the leftover steps one by one.
    // TODO: the work-group reduction, as in exercise 11.
}

__kernel void pi_vec8(const int niters,
                      const float step_size,
                      __local float* local_sums,
                      __global float* partial_sums)
{
    // TODO: as pi_vec4, with float8 and eight lanes (0.5f .. 7.5f).
}
