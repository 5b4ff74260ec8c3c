# Planted bugs for exercise 12 (see workbook_mutant() in cmake/workbook.cmake).

# The leftover steps are forgotten: wrong whenever niters is no multiple of 4.
workbook_mutant(vec4_drops_remainder pi_vec.cl
  [=[    float sum = halves.s0 + halves.s1;
    // niters need not be a multiple of 4: the last niters % 4 steps one at a time.
    for (; i < niters; i++) {]=]
  [=[    float sum = halves.s0 + halves.s1;
    for (; i < 0; i++) {  // planted bug: the last niters % 4 steps are dropped]=])
# Every lane at the same x.
workbook_mutant(vec4_lanes_not_offset pi_vec.cl
  [=[(float4)(0.5f, 1.5f, 2.5f, 3.5f)]=]
  [=[(float4)(0.5f) /* planted bug */]=])
# One lane forgotten when the lanes are added.
workbook_mutant(vec8_lane_dropped pi_vec.cl
  [=[float sum = (halves.s0 + halves.s1) + (halves.s2 + halves.s3);]=]
  [=[float sum = (halves.s0 + halves.s1) + halves.s2;  // planted bug]=])
# Vector loop runs one vector too far: steps past the work-item's range are added.
workbook_mutant(vec8_overruns pi_vec.cl
  [=[for (; i + 8 <= niters; i += 8) {]=]
  [=[for (; i < niters; i += 8) {  // planted bug: the last vector overruns]=])
# The first step in a 32-bit int, in each kernel: it wraps once g·niters passes 2^31.
workbook_mutant(vec4_int_first_step pi_vec.cl
  [=[    const long first = (long)get_global_id(0) * niters;
    // The midpoints]=]
  [=[    const int first = get_global_id(0) * niters;  // planted bug: 32-bit index
    // The midpoints]=]
  MESSAGE "Cause: the 32-bit step index overflows" "pi_vec4 with")
workbook_mutant(vec8_int_first_step pi_vec.cl
  [=[    const long first = (long)get_global_id(0) * niters;
    const float8 lanes]=]
  [=[    const int first = get_global_id(0) * niters;  // planted bug: 32-bit index
    const float8 lanes]=]
  MESSAGE "Cause: the 32-bit step index overflows" "pi_vec8 with")
# No barrier between the stores to local_sums and work-item 0 reading them. A CPU device runs the
# group's work-items one after another and hides it; the race pass (which now covers exercise 12)
# must report it.
workbook_mutant(missing_barrier pi_vec.cl
  [=[    local_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);]=]
  [=[    local_sums[lid] = sum;  // planted bug: no barrier before the reduction]=] RACE)
