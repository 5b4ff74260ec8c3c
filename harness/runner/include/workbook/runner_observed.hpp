// What a runner observes of the OpenCL calls its process makes: the profiling times read from
// events (START and END), for a checker that must know a reported kernel time came from an event
// (exercise 06), not from a clock. It sees calls made through the runner's executable (host code,
// util layer, CLHPP); host code that fetches the loader's function by hand goes past it, as the
// README's threat table says. Reported to the checker, which decides.
#pragma once

#include <vector>

namespace workbook::runner {

// end - start, in seconds, of every event whose START and END were read since the last forget.
std::vector<double> observed_event_seconds();
void forget_observed_events();

}  // namespace workbook::runner
