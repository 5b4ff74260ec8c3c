// What a kernel's launch executed, counted by Oclgrind (testing.hpp: counted_call): for checks of
// a lesson's use of a built-in by what ran, never by the words of the source.
#include "workbook/testing.hpp"

#include "workbook/errors.hpp"
#include "workbook/race_check.hpp"

#include <fmt/format.h>

namespace workbook::testing {

std::optional<Counted> counted_call(const std::string& op, runner::Message request, std::string& why_not) {
    const auto available = race::availability();
    if (!available.on) {
        why_not = available.why_off;
        return std::nullopt;
    }
    std::vector<std::string> tool = {available.command, "--inst-counts"};
    std::string no_plugin;
    if (const std::string fingerprint = race::fingerprint_plugin(no_plugin); !fingerprint.empty())
        tool.insert(tool.end(), {"--plugins", fingerprint});
    const auto sized = race::graded_device_options();  // the graded build, not Oclgrind's own
    tool.insert(tool.end(), sized.begin(), sized.end());
    // The student's runner, wrapped as the graded cases are (the grader's sandbox); Oclgrind is
    // the only platform under it, and its counts come without thousands separators.
    runner::Client client({}, true, {tool, {"WORKBOOK_PLATFORM=", "WORKBOOK_DEVICE=", "WORKBOOK_DEVICE_TYPE=", "LC_ALL=C"}});
    runner::Message reply = client.call(op, std::move(request));
    client.close();
    const std::string counted = client.captured_stdout();
    if (const auto at = counted.find("workbook fingerprint: "); at != std::string::npos)
        throw Error(fmt::format("the counted run of your kernel counts nothing: {}",
                                counted.substr(at + 22, counted.find('\n', at) - at - 22)));
    // A kernel's printf could add a report of its own: exactly one, as in the traffic run.
    std::size_t headers = 0;
    for (auto at = counted.find("Instructions executed for kernel '"); at != std::string::npos;
         at = counted.find("Instructions executed for kernel '", at + 1))
        ++headers;
    const auto blocks = traffic::parse_inst_counts(counted);
    if (headers != 1 || blocks.size() != 1)
        throw Error(fmt::format("the counted run of your kernel reported {} launches where one was made; a kernel's "
                                "printf can cause this: remove printf calls from the kernel",
                                headers));
    return Counted{blocks.front(), std::move(reply)};
}

}  // namespace workbook::testing
