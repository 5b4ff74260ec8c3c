// Reading Oclgrind's instruction counts and judging a rung on them (see traffic.hpp).
#include "workbook/traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace workbook::traffic {

namespace {

constexpr std::string_view header = "Instructions executed for kernel '";

// "   1,024 - load global (4096 bytes)" -> count, operation, bytes. False for any other line.
// Oclgrind prints in the default locale: a count may carry thousands separators.
bool count_line(std::string_view line, std::uint64_t& count, std::string_view& op, std::uint64_t& bytes) {
    std::size_t i = line.find_first_not_of(' ');
    if (i == std::string_view::npos) return false;
    count = 0;
    bool digits = false;
    for (; i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == ',' || line[i] == '.'); ++i)
        if (std::isdigit(static_cast<unsigned char>(line[i]))) {
            count = count * 10 + static_cast<std::uint64_t>(line[i] - '0');
            digits = true;
        }
    if (!digits || line.substr(i, 3) != " - ") return false;
    op = line.substr(i + 3);
    bytes = 0;
    if (const auto open = op.rfind(" ("); open != std::string_view::npos && op.ends_with(" bytes)")) {
        for (char ch : op.substr(open + 2, op.size() - open - 2 - 7)) {
            if (std::isdigit(static_cast<unsigned char>(ch))) bytes = bytes * 10 + static_cast<std::uint64_t>(ch - '0');
            else if (ch != ',' && ch != '.') return false;
        }
        op = op.substr(0, open);
    }
    return true;
}

// vloadN, vstoreN and their _half forms are calls in Oclgrind's counts, not load and store
// instructions: counted here as the loads and stores they are (one per call, N elements of the
// pointer's type), so that a kernel cannot hide its traffic by how it writes an access. `args` is
// the mangled parameter list ("mPU3AS3Kf": an offset, a pointer to const __local float).
void vector_access(Counts& c, std::uint64_t count, std::string_view name, std::string_view args) {
    const bool load = name.starts_with("vload"), store = name.starts_with("vstore");
    if (!load && !store) return;
    std::string_view rest = name.substr(load ? 5 : 6);
    if (rest.starts_with("a_half")) rest.remove_prefix(6);
    else if (rest.starts_with("_half")) rest.remove_prefix(5);
    std::uint64_t width = 0;
    for (char ch : rest) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) return;  // vload_half_rte and the like: not ours to guess
        width = width * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    if (width == 0) width = 1;
    // The pointer is the last parameter: P, then its address space (U3AS1 global, U3AS2 constant,
    // U3AS3 local; none: private), qualifiers, then the element's type.
    const auto at = args.rfind('P');
    if (at == std::string_view::npos) return;
    std::string_view type = args.substr(at + 1);
    int space = 0;
    if (type.starts_with("U3AS") && type.size() > 4) {
        space = type[4] - '0';
        type.remove_prefix(5);
    }
    while (!type.empty() && (type.front() == 'K' || type.front() == 'V')) type.remove_prefix(1);
    std::uint64_t element = 0;
    if (type.starts_with("Dh")) element = 2;
    else if (!type.empty())
        switch (type.front()) {
        case 'c': case 'a': case 'h': element = 1; break;
        case 's': case 't': element = 2; break;
        case 'i': case 'j': case 'f': element = 4; break;
        case 'l': case 'm': case 'd': element = 8; break;
        default: return;
        }
    const std::uint64_t bytes = count * width * element;
    if (space == 1 || space == 2) {
        if (load) c.global_loads += count, c.global_load_bytes += bytes;
        else c.global_stores += count, c.global_store_bytes += bytes;
    } else if (space == 3) {
        if (load) c.local_loads += count, c.local_load_bytes += bytes;
        else c.local_stores += count, c.local_store_bytes += bytes;
    }
}

void add(Counts& c, std::uint64_t count, std::string_view op, std::uint64_t bytes) {
    if (op == "load global") c.global_loads += count, c.global_load_bytes += bytes;
    else if (op == "store global") c.global_stores += count, c.global_store_bytes += bytes;
    else if (op == "load local") c.local_loads += count, c.local_load_bytes += bytes;
    else if (op == "store local") c.local_stores += count, c.local_store_bytes += bytes;
    // barrier() and work_group_barrier(), as their mangled names show them.
    else if (op.starts_with("call ") && op.find("barrier") != std::string_view::npos) c.barriers += count;
    // Every call by its name: "call _Z21async_work_group_copyPU3AS3f...()" is a name of 21
    // characters after the length (the Itanium mangling Oclgrind prints).
    if (op.starts_with("call _Z")) {
        std::size_t i = 7, length = 0;
        for (; i < op.size() && std::isdigit(static_cast<unsigned char>(op[i])); ++i)
            length = length * 10 + static_cast<std::size_t>(op[i] - '0');
        if (length > 0 && i + length <= op.size()) {
            const std::string name(op.substr(i, length));
            c.calls[name] += count;
            vector_access(c, count, name, op.substr(i + length));
        }
    }
}

// Reads Oclgrind's style of report: a line starting with `header` opens a block (on_header gets
// the rest of that line), its count lines follow (on_count), and any other line ends the block.
template <typename OnHeader, typename OnCount>
void read_blocks(std::string_view text, std::string_view header, OnHeader on_header, OnCount on_count) {
    bool in_block = false;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        start = end + 1;
        if (line.starts_with(header)) {
            on_header(line.substr(header.size()));
            in_block = true;
            continue;
        }
        if (!in_block) continue;
        std::uint64_t count = 0, bytes = 0;
        std::string_view op;
        if (count_line(line, count, op, bytes)) on_count(count, op, bytes);
        else in_block = false;
    }
}

}  // namespace

std::vector<Counts> parse_inst_counts(std::string_view text) {
    std::vector<Counts> out;
    read_blocks(
        text, header,
        [&](std::string_view rest) {
            const auto close = rest.find("':");
            out.push_back({});
            out.back().kernel = std::string(rest.substr(0, close));
        },
        [&](std::uint64_t count, std::string_view op, std::uint64_t bytes) { add(out.back(), count, op, bytes); });
    return out;
}

std::vector<Overlap> parse_overlap(std::string_view text) {
    std::vector<Overlap> out;
    read_blocks(
        text, "Global loads hidden for kernel launch ", [&](std::string_view) { out.push_back({}); },
        [&](std::uint64_t count, std::string_view op, std::uint64_t) {
            if (op == "global load bytes") out.back().global_load_bytes += count;
            else if (op == "hidden global load bytes") out.back().hidden_global_load_bytes += count;
            else if (op == "global load waits") out.back().global_load_waits = out.back().global_load_waits.value_or(0) + count;
        });
    return out;
}

std::string_view name(Metric m) {
    switch (m) {
    case Metric::global_bytes: return "global bytes loaded per multiply-add";
    case Metric::local_bytes: return "local bytes loaded per multiply-add";
    case Metric::loads: return "load instructions per multiply-add";
    case Metric::exposed_bytes: return "global bytes loaded with no computing after them to hide them, per multiply-add";
    case Metric::load_waits:
        return "waits for global loads per multiply-add (a work-item waits at the first use of a value loaded since "
               "its last wait)";
    }
    return "?";
}

std::string_view short_name(Metric m) {
    switch (m) {
    case Metric::global_bytes: return "global B";
    case Metric::local_bytes: return "local B";
    case Metric::loads: return "loads";
    case Metric::exposed_bytes: return "exposed B";
    case Metric::load_waits: return "waits";
    }
    return "?";
}

int decimals(Metric m) { return m == Metric::load_waits ? 6 : 4; }

bool needs_plugin(Metric m) { return m == Metric::exposed_bytes || m == Metric::load_waits; }

double Figures::of(Metric m) const {
    switch (m) {
    case Metric::global_bytes: return global_bytes;
    case Metric::local_bytes: return local_bytes;
    case Metric::loads: return loads;
    // Uncounted (no plugin): as if nothing were hidden, which the judge never reaches (count_traffic
    // refuses to grade on it then).
    case Metric::exposed_bytes: return exposed_bytes.value_or(global_bytes);
    // As if every load instruction waited alone.
    case Metric::load_waits: return load_waits.value_or(loads);
    }
    return 0;
}

Figures per_multiply_add(const Counts& c, int n, const std::optional<Overlap>& overlap) {
    const double macs = std::pow(static_cast<double>(n), 3);
    Figures f;
    f.global_bytes = static_cast<double>(c.global_load_bytes) / macs;
    f.local_bytes = static_cast<double>(c.local_load_bytes) / macs;
    f.loads = static_cast<double>(c.global_loads + c.local_loads) / macs;
    f.global_store_bytes = static_cast<double>(c.global_store_bytes) / macs;
    if (overlap) {
        const auto hidden = std::min(overlap->hidden_global_load_bytes, overlap->global_load_bytes);
        f.exposed_bytes = static_cast<double>(overlap->global_load_bytes - hidden) / macs;
        if (overlap->global_load_waits) f.load_waits = static_cast<double>(*overlap->global_load_waits) / macs;
    }
    return f;
}

Verdict judge(Metric m, const Figures& previous, const Figures& solution, const Figures& student, double least_cut) {
    Verdict v;
    v.previous = previous.of(m);
    v.solution = solution.of(m);
    v.student = student.of(m);
    v.cut = v.solution > 0 ? v.previous / v.solution : 0;
    v.meaningful = v.cut >= least_cut;
    v.required = std::sqrt(v.previous * v.solution);
    v.previous_global = previous.global_bytes;
    v.student_global = student.global_bytes;
    v.global_ok = student.global_bytes <= previous.global_bytes * (1 + 1e-9);
    v.ok = v.meaningful && v.student <= v.required && v.global_ok;
    return v;
}

Verdict keep(Metric m, const Figures& previous, const Figures& solution, const Figures& student) {
    Verdict v = judge(m, previous, solution, student);
    v.kept = true;
    v.meaningful = true;
    v.required = 2 * v.previous;
    v.ok = v.student <= v.required && v.global_ok;
    return v;
}

std::string table(int n, const Figures& student, const Figures& solution, const std::string& solution_name,
                  const Figures& previous, const std::string& previous_name, const std::vector<Metric>& graded) {
    const auto mark = [&](Metric m) { return std::find(graded.begin(), graded.end(), m) != graded.end() ? "*" : " "; };
    // The plugin's columns where it counted all three launches (rungs 18 and 19).
    const bool exposed = student.exposed_bytes && solution.exposed_bytes && previous.exposed_bytes;
    const bool waits = student.load_waits && solution.load_waits && previous.load_waits;
    std::string t = fmt::format("memory traffic per multiply-add at N = {}, counted by Oclgrind (the same on every device){}:\n"
                                "  {:<42} {:>9}{} {:>9}{} {:>7}{}",
                                n, graded.empty() ? "" : "; * marks what this rung is graded on here", "", "global B",
                                mark(Metric::global_bytes), "local B", mark(Metric::local_bytes), "loads", mark(Metric::loads));
    if (exposed) t += fmt::format(" {:>9}{}", "exposed B", mark(Metric::exposed_bytes));
    if (waits) t += fmt::format(" {:>9}{}", "waits", mark(Metric::load_waits));
    t += "\n";
    const auto row = [&](const std::string& who, const Figures& f) {
        t += fmt::format("  {:<42} {:>10.4f} {:>10.4f} {:>8.4f}", who, f.global_bytes, f.local_bytes, f.loads);
        if (exposed) t += fmt::format(" {:>10.4f}", *f.exposed_bytes);
        if (waits) t += fmt::format(" {:>10.{}f}", *f.load_waits, decimals(Metric::load_waits));
        t += "\n";
    };
    row("yours", student);
    row(fmt::format("this rung's solution ({})", solution_name), solution);
    row(fmt::format("the previous rung's ({})", previous_name), previous);
    t.pop_back();
    return t;
}

}  // namespace workbook::traffic
