# Planted bugs for exercise 13 (see workbook_mutant() in cmake/workbook.cmake).

# The join waits for first only: on an out-of-order queue it may start before y is written.
workbook_mutant(join_ignores_second events.cpp
  [=[    const std::vector<cl::Event> both{events.first, events.second};]=]
  [=[    const std::vector<cl::Event> both{events.first};  // planted bug: second is missing]=])
# first is not held by its user event.
workbook_mutant(first_not_held events.cpp
  [=[scale(cl::EnqueueArgs(queue, after_first, range)]=]
  [=[scale(cl::EnqueueArgs(queue, range) /* planted bug: no wait list */]=])
# Waits for the graph inside the function: it can never finish there.
workbook_mutant(waits_inside events.cpp
  [=[    queue.flush();
    return events;]=]
  [=[    queue.finish();  // planted bug: waits for commands the user events still hold
    return events;]=])
workbook_mutant(wrong_factor events.cpp
  [=[buffers.b, buffers.y, 3.0f, buffers.count]=]
  [=[buffers.b, buffers.y, 2.0f, buffers.count /* planted bug */]=])
# first's scale runs one element past x (count + 1): the graded test checks z, whose elements are
# all right, so a CPU device hides it; the race pass (which now covers exercise 13, with the user
# events set first) sees the write past the end of x.
workbook_mutant(first_one_past_end events.cpp
  [=[scale(cl::EnqueueArgs(queue, after_first, range), buffers.a, buffers.x, 2.0f, buffers.count);]=]
  [=[scale(cl::EnqueueArgs(queue, after_first, cl::NDRange(buffers.count + 1)), buffers.a, buffers.x, 2.0f,
                         buffers.count + 1);  // planted bug: one past the end]=] RACE)
# Host code that never launches the kernels: z = 2a + 3b on the CPU, written to the device, and
# markers with the right wait lists standing in for the three commands. The order and z are
# right; only the witness case (the test's own events.cl, whose values carry a mark) can tell.
workbook_mutant(graph_on_cpu events.cpp
  [=[    events.first = scale(cl::EnqueueArgs(queue, after_first, range), buffers.a, buffers.x, 2.0f, buffers.count);]=]
  [=[    // planted bug: z computed on the CPU, markers in place of the commands
    std::vector<float> a(buffers.count), b(buffers.count), z(buffers.count);
    queue.enqueueReadBuffer(buffers.a, CL_TRUE, 0, a.size() * sizeof(float), a.data());
    queue.enqueueReadBuffer(buffers.b, CL_TRUE, 0, b.size() * sizeof(float), b.data());
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = 2.0f * a[i] + 3.0f * b[i];
    queue.enqueueWriteBuffer(buffers.z, CL_TRUE, 0, z.size() * sizeof(float), z.data());
    queue.enqueueMarkerWithWaitList(&after_first, &events.first);
    queue.enqueueMarkerWithWaitList(&after_second, &events.second);
    const std::vector<cl::Event> inputs{events.first, events.second};
    queue.enqueueMarkerWithWaitList(&inputs, &events.joined);
    queue.flush();
    if (buffers.count > 0) return events;
    events.first = scale(cl::EnqueueArgs(queue, after_first, range), buffers.a, buffers.x, 2.0f, buffers.count);]=]
  MESSAGE "without the marks")
