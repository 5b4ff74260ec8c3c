// A per-student rate: a burst of requests, then one per refill interval (a token bucket). The lab's
// reports and the remote checks' polls use it, each with its own rate; a student over it gets 429
// with Retry-After, which the client waits out.
#pragma once

#include <algorithm>
#include <chrono>

namespace workbook::server {

class Rate {
public:
    Rate(double burst, double refill_s) : burst_(burst), refill_s_(refill_s), tokens_(burst) {}
    // Seconds to wait before the next request is taken (0: take it now, and count it).
    int take() {
        const auto now = std::chrono::steady_clock::now();
        tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - at_).count() / refill_s_);
        at_ = now;
        if (tokens_ >= 1) {
            tokens_ -= 1;
            return 0;
        }
        return static_cast<int>((1 - tokens_) * refill_s_) + 1;
    }

private:
    double burst_, refill_s_, tokens_;
    std::chrono::steady_clock::time_point at_ = std::chrono::steady_clock::now();
};

}  // namespace workbook::server
