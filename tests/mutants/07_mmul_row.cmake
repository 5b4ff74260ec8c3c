# Planted bugs for exercise 07 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(no_row_guard mmul.cl
  [=[    if (i >= N) {
        return;
    }]=]
  [=[    // planted bug: rows past N are not skipped]=])
workbook_mutant(transposed_b mmul.cl
  [=[B[k * N + j]]=]
  [=[B[j * N + k] /* planted bug */]=])
workbook_mutant(sum_not_reset mmul.cl
  [=[    for (int j = 0; j < N; j++) {
        // Row i of A is read N times, once per column: the next two rungs keep it closer.
        float sum = 0.0f;]=]
  [=[    float sum = 0.0f;  // planted bug: not reset for each column
    for (int j = 0; j < N; j++) {]=])
