# Planted bugs for exercise 08 (see workbook_mutant() in cmake/workbook.cmake).

# A private array sized by a number the student chose, too small for N = MAX_N.
workbook_mutant(private_array_too_small mmul.cl
  [=[float Awrk[MAX_N];]=]
  [=[float Awrk[512];  // planted bug: smaller than N may be]=])
workbook_mutant(private_row_not_copied mmul.cl
  [=[        Awrk[k] = A[i * N + k];]=]
  [=[        Awrk[k] = A[k];  // planted bug: always row 0]=])
# The remainder columns forgotten: wrong whenever N is not a multiple of 4.
workbook_mutant(remainder_columns_dropped mmul.cl
  [=[    for (; j < N; j++) {
        float sum = 0.0f;]=]
  [=[    for (; j < 0; j++) {  // planted bug: the last N % 4 columns are never computed
        float sum = 0.0f;]=])
