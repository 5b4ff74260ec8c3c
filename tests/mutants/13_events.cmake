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
