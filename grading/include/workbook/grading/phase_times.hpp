// Where a grading run's time goes: wall seconds per phase, summed over the threads that ran it
// (preparing runs on --jobs threads while testing runs on one, so the sums can exceed the run's
// wall time), and processor seconds: the thread's own and its waited-for processes' (every
// checker, runner, compiler and Oclgrind run). Processor seconds are the work itself, so the
// floor of a class on C cores is their sum over C, however loaded the machine was. `workbook
// grade` prints the table at the end and keeps it in phases.json, which bench/grade_class.sh
// compares before and after.
#pragma once

#include "workbook/process.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace workbook::grading {

class PhaseTimes {
public:
    // Adds the time from construction to destruction to `phase`.
    class Scope {
    public:
        Scope(PhaseTimes& times, std::string phase) : times_(times), phase_(std::move(phase)) {}
        ~Scope() {
            times_.add(phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                       thread_work_cpu_seconds() - cpu_start_);
        }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        PhaseTimes& times_;
        std::string phase_;
        std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
        double cpu_start_ = thread_work_cpu_seconds();
    };

    void add(const std::string& phase, double seconds, double cpu_seconds) {
        std::lock_guard lock(m_);
        auto& p = phases_[phase];
        if (p.count == 0) order_.push_back(phase);
        p.seconds += seconds;
        p.cpu_seconds += cpu_seconds;
        ++p.count;
    }

    // "phase  wall s  CPU s  times  CPU per submission": one line per phase, in the order first
    // seen, then the processor seconds in all.
    std::string table(int submissions) const;
    std::string json() const;

private:
    struct Phase {
        double seconds = 0;
        double cpu_seconds = 0;
        int count = 0;
    };
    mutable std::mutex m_;
    std::map<std::string, Phase> phases_;
    std::vector<std::string> order_;
};

}  // namespace workbook::grading
