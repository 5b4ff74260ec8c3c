// How the board ranks entries honestly on a noisy machine. Each timed launch of an entry is paired
// with a launch of the yardstick (the instructor's tuned kernel) on the same inputs; the entry's
// speed is the ratio yardstick time / entry time, which machine drift moves little. Each run keeps
// the median ratio and a spread (nearly the whole range of its ratios), and entries whose spreads overlap are
// shown tied, with one rank, rather than ranked apart by noise.
#pragma once

#include "contest/types.hpp"

#include <string>
#include <utility>
#include <vector>

namespace workbook::contest {

struct Spread {
    double median = 0, low = 0, high = 0;
};

// The median and the range of the ratios, a tenth of them (rounded down: none of the default
// nine) dropped at each end. Nearly the whole range, so that two entries are ranked apart only when
// (nearly) every timed launch of one beat every launch of the other. Measured on this 2-core VM:
// one launch's ratio varies 15%, and a judging's median moves a few percent more with the
// machine's moods; the middle half of the ratios (tried first) split five judgings of one kernel
// into two ranks in one board of three. Empty input: all zero.
Spread spread(std::vector<double> values);

// One entry to rank: its median ratio and spread.
struct Ranked {
    Spread speed;
    int rank = 0;        // 1-based; entries tied with the one above share its rank
    bool tied = false;   // shares its rank with another entry
};

// Ranks entries already sorted by median ratio, best first. A run of entries is tied with the
// first of the run (its leader) when each one's spread reaches the leader's: high >= leader.low.
// Measured against the leader, not the neighbour, so a chain of small overlaps cannot tie the
// fastest entry with the slowest. An entry without a ratio (median 0: a run from before the
// yardstick) is never tied.
void assign_ranks(std::vector<Ranked>& sorted);

// The cross-device view of a zoo: each alias ranked by the geometric mean of its "x naive" over
// the boards it is on (its record on each, as the boards show it). The mean of ratios, not of
// GFLOPS, so that a fast device does not outweigh a slow one. Rows without an x naive (a board with
// no baseline yet) are left out of the mean; an alias with none is left out.
struct CrossDeviceRow {
    int rank = 0;
    std::string alias;
    double geomean = 0;
    std::vector<std::pair<std::string, double>> speedups;  // board, x naive
};
std::vector<CrossDeviceRow> cross_device(const std::vector<DeviceBoard>& boards);

}  // namespace workbook::contest
