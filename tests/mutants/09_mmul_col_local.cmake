# Planted bugs for exercise 09 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_first_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // Bwrk is complete]=]
  [=[        // planted bug: no barrier after the load]=])
workbook_mutant(missing_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done with this column before the next load]=]
  [=[        // planted bug: no barrier before the next load]=] RACE)
# Each work-item loads only its own element: the column is incomplete when N > group size, and
# the rest of Bwrk is read uninitialised (the race check must say so too).
workbook_mutant(partial_column_load mmul.cl
  [=[        for (int k = iloc; k < N; k += nloc) {
            Bwrk[k] = B[k * N + j];
        }]=]
  [=[        if (iloc < N) {  // planted bug: one element per work-item
            Bwrk[iloc] = B[iloc * N + j];
        }]=] ALSO_RACE)
# The classic course's shape: the whole column loop, barriers included, inside the row test. The
# work-items past the last row never reach the barriers (barrier divergence). The graded test
# sees only wrong values; the race pass, run after the failure, names the divergent barrier and
# its line, and is shown first.
workbook_mutant(barriers_inside_row_test mmul.cl
  [=[    for (int j = 0; j < N; j++) {]=]
  [=[    if (has_row) for (int j = 0; j < N; j++) {  // planted bug: the barriers inside if (i < N)]=]
  RACE_MESSAGE "Work-group divergence" "barrier(CLK_LOCAL_MEM_FENCE)")
