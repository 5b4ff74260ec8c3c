# Planted bugs for exercise 11 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(drops_last_work_item pi.cl
  [=[l < group_size; l++]=]
  [=[l < group_size - 1; l++ /* planted bug */]=])
# PoCL catches it; a GPU running small groups in lockstep (the H100) does not, so the race pass
# must report it too.
workbook_mutant(missing_barrier pi.cl
  [=[    barrier(CLK_LOCAL_MEM_FENCE);]=]
  [=[    // planted bug: no barrier before the reduction]=] ALSO_RACE
  RACE_MESSAGE "Read-write data race" "local_sums[lid] = sum;")
workbook_mutant(partial_sum_misplaced pi.cl
  [=[partial_sums[get_group_id(0)] = group_sum;]=]
  [=[partial_sums[get_global_id(0) / 2] = group_sum;  // planted bug]=])
# Work-items start one step apart instead of niters apart: their ranges overlap.
workbook_mutant(overlapping_ranges pi.cl
  [=[const long first = (long)get_global_id(0) * niters;]=]
  [=[const long first = (long)get_global_id(0);  // planted bug]=])
# The left end of each step instead of its midpoint.
workbook_mutant(left_rule pi.cl
  [=[((float)(first + i) + 0.5f) * step_size]=]
  [=[((float)(first + i)) * step_size /* planted bug */]=])
# Only the first group's reduction runs.
workbook_mutant(only_first_group pi.cl
  [=[    if (lid == 0) {]=]
  [=[    if (lid == 0 && get_group_id(0) == 0) {  // planted bug]=])
# Odd work-items fold their sum into the even neighbour's slot before the barrier. PoCL runs a
# group's work-items one after another, so the even one has always written its slot first and
# the answer is right; on a GPU the two race. Only the race check sees it.
workbook_mutant(reads_neighbour_before_barrier pi.cl
  [=[    local_sums[lid] = sum;]=]
  [=[    if (lid % 2 == 1) {  // planted bug: reads the neighbour's slot before the barrier
        local_sums[lid - 1] += sum;
        local_sums[lid] = 0.0f;
    } else {
        local_sums[lid] = sum;
    }]=] RACE)
# The first step in a 32-bit int: it wraps once g·niters passes 2^31 (the classic course's pi
# printed -nan at 2^33 steps). Caught by the launch whose indices pass 2^32, named as such.
workbook_mutant(int_first_step pi.cl
  [=[const long first = (long)get_global_id(0) * niters;]=]
  [=[const int first = get_global_id(0) * niters;  // planted bug: 32-bit index]=]
  MESSAGE "Cause: the 32-bit step index overflows" "wrapped to a 32-bit int")
# The same in an unsigned int: right up to 2^32 steps, wrong past them.
workbook_mutant(uint_first_step pi.cl
  [=[const long first = (long)get_global_id(0) * niters;]=]
  [=[const uint first = get_global_id(0) * niters;  // planted bug: 32-bit index]=]
  MESSAGE "Cause: the 32-bit step index overflows" "wrapped to a 32-bit unsigned int")
# The classic course's numbering (group · size + local id), which ignores the launch's global
# offset, with its first step in an int: the offset launch cannot test it, so the launch of 2^32
# steps without offset does, and names the cause.
workbook_mutant(group_numbered_int_first_step pi.cl
  [=[const long first = (long)get_global_id(0) * niters;]=]
  [=[const int first = (get_group_id(0) * get_local_size(0) + get_local_id(0)) * niters;  // planted bug: 32-bit index]=]
  MESSAGE "Cause: the 32-bit step index overflows" "wrapped to a 32-bit int")
# The same race behind a flood of kernel printf (1.8 MB from work-item 0 before any other
# work-item runs): the report comes after the race pass's output cap. Output past the cap may
# hide a report, so the pass must fail rather than read "clean" (issue 60, evidence dropped).
workbook_mutant(race_behind_printf_flood pi.cl
  [=[    local_sums[lid] = sum;]=]
  [=[    if (get_global_id(0) == 0)  // planted bug: a flood that pushes the race report past the cap
        for (int r = 0; r < 20000; r++)
            printf("flood %5d ..........................................................................\n", r);
    if (lid % 2 == 1) {  // planted bug: reads the neighbour's slot before the barrier
        local_sums[lid - 1] += sum;
        local_sums[lid] = 0.0f;
    } else {
        local_sums[lid] = sum;
    }]=] RACE)
