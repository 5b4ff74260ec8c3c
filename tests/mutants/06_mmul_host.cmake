# Planted bugs for exercise 06: each is the solution with one mistake students make, and the
# graded test must fail on every one (see workbook_mutant() in cmake/workbook.cmake).

workbook_mutant(range_one_short mmul_host.cpp
  [=[cl::NDRange(n, n)]=]
  [=[cl::NDRange(n, n - 1) /* planted bug */]=])
workbook_mutant(int_overflow_in_mflops mmul_host.cpp
  [=[    const double size = n;
    return 2.0 * size * size * size / seconds * 1e-6;]=]
  [=[    return 2 * n * n * n / seconds * 1e-6;  // planted bug: n * n * n in int]=])
# The kernel time taken from the host clock instead of the event.
workbook_mutant(kernel_time_not_from_event mmul_host.cpp
  [=[    return MatmulTiming{event_times(event).run_seconds(), wall.seconds()};]=]
  [=[    (void)event;  // planted bug: no event timing
    return MatmulTiming{wall.seconds(), wall.seconds() * 0.5};]=])
