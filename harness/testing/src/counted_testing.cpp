// What a kernel's launch executed, counted by Oclgrind (testing.hpp: counted_call): for checks of
// a lesson's use of a built-in by what ran, never by the words of the source.
#include "workbook/testing.hpp"

#include "counted_launch.hpp"

#include "workbook/errors.hpp"
#include "workbook/race_check.hpp"

#include <fmt/format.h>

#include <string_view>

namespace workbook::testing {

std::vector<std::string> counting_tool(const std::string& oclgrind, const std::vector<std::string>& plugins) {
    std::vector<std::string> tool = {oclgrind, "--inst-counts"};
    std::string joined;
    for (const auto& p : plugins)
        if (!p.empty()) joined += (joined.empty() ? "" : ":") + p;
    if (!joined.empty()) tool.insert(tool.end(), {"--plugins", joined});
    const auto sized = race::graded_device_options();  // the graded build, not Oclgrind's own
    tool.insert(tool.end(), sized.begin(), sized.end());
    return tool;
}

std::size_t occurrences(const std::string& text, const std::string& header) {
    std::size_t n = 0;
    for (auto at = text.find(header); at != std::string::npos; at = text.find(header, at + 1)) ++n;
    return n;
}

traffic::Counts one_counted_launch(const std::string& counted, const std::string& run, bool fingerprint,
                                   const std::string& kernel) {
    // The pointer-bits plugin's line (fingerprint.cpp; the full report with its source line went
    // to stderr).
    constexpr std::string_view prefix = "workbook fingerprint: ";
    if (const auto at = counted.find(prefix); fingerprint && at != std::string::npos) {
        const auto from = at + prefix.size();
        throw Error(fmt::format("{} counts nothing: {}. A kernel that can tell the simulator from the device may load "
                                "one way here and another there. Index with integers, and don't inspect pointer values",
                                run, counted.substr(from, counted.find('\n', from) - from)));
    }
    // A kernel's printf that ends without a newline glues itself to the real header, which then
    // opens no block, so that a block it printed itself would be the only one read: exactly one
    // header, counted anywhere, or refused.
    if (occurrences(counted, "Instructions executed for kernel '") != 1)
        throw Error(fmt::format("{} printed a second report, or text on the report's own line; a kernel's printf can "
                                "cause this: remove printf calls from the kernel",
                                run));
    const auto blocks = traffic::parse_inst_counts(counted);
    if (blocks.size() != 1 || (!kernel.empty() && blocks[0].kernel != kernel))
        throw Error(fmt::format("{} reported {} launches where one{} was made; a kernel's printf can cause this: remove "
                                "printf calls from the kernel",
                                run, blocks.size(), kernel.empty() ? "" : " of " + kernel));
    return blocks.front();
}

std::optional<Counted> counted_call(const std::string& op, runner::Message request, std::string& why_not) {
    const auto available = race::availability();
    if (!available.on) {
        why_not = available.why_off;
        return std::nullopt;
    }
    std::string no_plugin;
    const std::string fingerprint = race::fingerprint_plugin(no_plugin);
    // The student's runner, wrapped as the graded cases are (the grader's sandbox); Oclgrind is
    // the only platform under it, and its counts come without thousands separators.
    runner::Client client({}, true,
                          {counting_tool(available.command, {fingerprint}),
                           {"WORKBOOK_PLATFORM=", "WORKBOOK_DEVICE=", "WORKBOOK_DEVICE_TYPE=", "LC_ALL=C"}});
    runner::Message reply = client.call(op, std::move(request));
    client.close();
    return Counted{one_counted_launch(client.captured_stdout(), "the counted run of your kernel", !fingerprint.empty()),
                   std::move(reply)};
}

}  // namespace workbook::testing
