# Planted bugs for exercise 18 (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(missing_second_barrier mmul.cl
  [=[        barrier(CLK_LOCAL_MEM_FENCE);  // everyone done with these tiles before the next load]=]
  [=[        // planted bug: no barrier before the next load]=] RACE)
# Not transposed after all: element (r, k4) stored at (k4, r)'s place only for j = 0.
workbook_mutant(store_not_transposed mmul.cl
  [=[            At[(k4 + 1) * (TSM + PAD) + r] = a.y;]=]
  [=[            At[r * (TSM + PAD) + k4 + 1] = a.y;  // planted bug: not transposed]=])
# The reads forget the padding: every k-row after the first is read shifted.
workbook_mutant(padding_forgotten mmul.cl
  [=[            const float4 a_lo = AwrkT[(k * (TSM + PAD) + lr * WPTM) / 4];]=]
  [=[            const float4 a_lo = AwrkT[(k * TSM + lr * WPTM) / 4];  // planted bug: rows are TSM + PAD long]=])
# The stores use exercise 17's rows, RTSM apart, while the sums are for neighbouring rows.
workbook_mutant(store_rows_apart mmul.cl
  [=[        const int row = first_row + lr * WPTM + i;]=]
  [=[        const int row = first_row + lr + i * RTSM;  // planted bug: exercise 17's rows]=])
