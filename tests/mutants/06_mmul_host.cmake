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
# Host code that never touches OpenCL: C on the CPU and times made up within the checks' bounds.
workbook_mutant(host_product_on_cpu mmul_host.cpp
  [=[    cl::Context context(device);]=]
  [=[    Stopwatch cpu;  // planted bug: no device at all
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
    (void)device;
    const double took = cpu.seconds() + 1e-9;
    return MatmulTiming{took / 2, took};
    cl::Context context(device);]=]
  MESSAGE "did not run the kernel it was given")
# The kernel time made up from the wall time (a share that passes every bound the old checks had):
# kernel_seconds must be an event's end - start that the call read.
workbook_mutant(kernel_time_share_of_wall mmul_host.cpp
  [=[    return MatmulTiming{event_times(event).run_seconds(), wall.seconds()};]=]
  [=[    (void)event;  // planted bug: a share of the wall time
    const double took = wall.seconds();
    return MatmulTiming{0.37 * took, took};]=]
  MESSAGE "is not the end - start of any")
# The kernel time taken from another command's event (the read-back's), whose profiling times the
# call does read: the runner's observer sees an event's end - start; the OpenCL broker, which
# times every launch on the device, sees that no launch of mmul over A and B took that long.
workbook_mutant(kernel_time_from_read_event mmul_host.cpp
  [=[    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c);
    return MatmulTiming{event_times(event).run_seconds(), wall.seconds()};]=]
  [=[    cl::Event read;  // planted bug: the read-back's event timed, not the kernel's
    queue.enqueueReadBuffer(c_device, CL_TRUE, 0, bytes, c, nullptr, &read);
    return MatmulTiming{event_times(read).run_seconds(), wall.seconds()};]=]
  MESSAGE "is not the end - start of any launch of mmul")
