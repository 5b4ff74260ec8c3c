# Planted bugs for exercise 05: each is the solution with one mistake students make, and the
# graded test must fail on every one (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(transposed_a mmul.cl
  [=[A[i * N + k]]=]
  [=[A[k * N + i] /* planted bug */]=])
workbook_mutant(transposed_b mmul.cl
  [=[B[k * N + j]]=]
  [=[B[j * N + k] /* planted bug */]=])
workbook_mutant(c_written_transposed mmul.cl
  [=[C[i * N + j] = sum;]=]
  [=[C[j * N + i] = sum;  // planted bug]=])
workbook_mutant(skips_last_k mmul.cl
  [=[k < N; k++]=]
  [=[k < N - 1; k++ /* planted bug */]=])
workbook_mutant(no_bounds_check mmul.cl
  [=[if (i < N && j < N) {]=]
  [=[{  // planted bug: no bounds check]=])
# C accumulated in place without being cleared first.
workbook_mutant(c_not_cleared mmul.cl
  [=[        float sum = 0.0f;
        for (int k = 0; k < N; k++) {
            sum += A[i * N + k] * B[k * N + j];
        }
        C[i * N + j] = sum;]=]
  [=[        for (int k = 0; k < N; k++) {  // planted bug: C is never cleared
            C[i * N + j] += A[i * N + k] * B[k * N + j];
        }]=])
